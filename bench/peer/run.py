#!/usr/bin/env python3
"""bench/peer/run.py: pipewave against PyTorch (torch.distributed.pipelining
over gloo) on the same training workload, side by side. Not part of CI.

    python3 bench/peer/run.py --build BUILD [--venv DIR] [--rounds 3]
                              [--steps 20] [--only mlp|transformer]
                              [--matmul auto|blas|vector]

Workloads (fp32, SGD lr 0.01, one thread per rank, ranks pinned to cores):
  mlp          8 linear layers 512x512 with ReLU, MSE loss, global batch 256
               (scripts/gen-mlp.py), 8 microbatches where pipelined
  transformer  examples/transformer.mlir (2 pre-LN blocks), global batch 4,
               4 microbatches where pipelined
each as: 1 rank full batch, 1 rank with the microbatches accumulated, 2 ranks
GPipe and 2 ranks 1F1B (PyTorch: ScheduleGPipe / Schedule1F1B, stage 0 the
first half of the layers, stage 1 the rest and the loss; pipewave: its
balanced cut).

Both sides start from the same parameters and data
(test/e2e/Inputs/torch/make_inputs.py: init.safetensors for pipewave's --init,
.npy for --data) and compute the same loss (the model's sum of squares over
the global element count); the losses of the first 5 steps are compared.
A step is timed as the slowest rank's time from a barrier to the end of its
optimizer update; step 1 (warm-up) is left out. Runs alternate pipewave /
PyTorch (ABAB) for every configuration, --rounds times; the report gives the
median and minimum step of each run, the pipewave / PyTorch ratio of the
medians within each pair, and their median over the rounds.

For the 2-rank 1F1B MLP it also prints the ideal step: the step's matmul
FLOPs (forward, and backward without the input gradient of the first layer)
split over 2 ranks at a single-core sgemm rate measured in this run
(torch.mm on one thread, 256x512x512, best of 20; and OpenBLAS's), times
(M + S - 1) / M for the pipeline bubble. The rates are measured at the
start and after every configuration, and the ideals use the highest: a
rate measured while the machine runs slow would flatter both frameworks.
For the 1-rank full-batch MLP it prints the same FLOPs on one core against
both frameworks' median steps: how far each is from the GEMM rate, which
bounds the ratio the two can reach.

PyTorch comes from a virtual environment: --venv DIR is used if it has torch,
else created there (python3 -m venv; pip install torch); without --venv one
is created in a temporary directory.
"""

import argparse
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "Inputs", "torch"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
# The kernels pipewave's ranks run (runtime/lib/BlasCore.cpp's rule).
runtime_core = importlib.import_module("openblas-coretype").runtime_core

LR = 0.01
COMPARE_STEPS = 5
WORKLOADS = {
    # name: (microbatches when pipelined, model file generator)
    "mlp": 8,
    "transformer": 4,
}
CONFIGS = [
    # name, ranks, microbatches (None: the workload's), schedule
    ("1 rank, full batch", 1, 1, "gpipe"),
    ("1 rank, microbatches accumulated", 1, None, "gpipe"),
    ("2 ranks, GPipe", 2, None, "gpipe"),
    ("2 ranks, 1F1B", 2, None, "1f1b"),
]


# --------------------------------------------------------------------------
# PyTorch side (runs inside the venv's interpreter: --worker)
# --------------------------------------------------------------------------

def read_safetensors(torch, path):
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        a, b = info["data_offsets"]
        t = torch.frombuffer(bytearray(raw[8 + n + a:8 + n + b]),
                             dtype=torch.float32)
        out[name] = t.reshape(info["shape"]).clone()
    return out


def read_npy(torch, path):
    with open(path, "rb") as f:
        raw = f.read()
    hlen = int.from_bytes(raw[8:10], "little")
    header = raw[10:10 + hlen].decode()
    shape = [int(d) for d in
             re.search(r"'shape': \(([^)]*)\)", header).group(1).split(",")
             if d.strip()]
    t = torch.frombuffer(bytearray(raw[10 + hlen:]), dtype=torch.float32)
    return t.reshape(shape).clone()


def mlp_layers(torch, p, h, layers, last):
    batch = h.shape[0]
    for k in layers:
        w, b = p["w%d" % k], p["b%d" % k]
        mm = torch.matmul(h.reshape(1, batch, w.shape[1]), w)
        h = mm.reshape(batch, w.shape[2]) + b
        if k != last:
            h = torch.clamp(h, min=0.0)
    return h


def transformer_parts(torch, ref):
    """Stage functions of examples/transformer.mlir, written as
    scripts/make-torch-reference.py writes the whole model."""
    def block(p, h, l):
        q = lambda n: p["l%d_%s" % (l, n)]  # noqa: E731
        B, T, D = h.shape
        H, Dh = 2, 16
        f32 = torch.float32
        inv_d = torch.tensor([[[1.0 / D]]], dtype=f32)
        eps = torch.tensor([[[1e-5]]], dtype=f32)
        mask = torch.triu(torch.full((T, T), -1.0e9, dtype=f32), 1).reshape(
            1, T, T)
        ln1 = ref.layer_norm(h, q("ln1_gamma"), q("ln1_beta"), inv_d, eps)
        tok = ln1.reshape(1, B * T, D)
        qh = torch.matmul(tok, q("wq")).reshape(B, T, H, Dh).permute(
            0, 2, 1, 3).reshape(B * H, T, Dh)
        kh = torch.matmul(tok, q("wk")).reshape(B, T, H, Dh).permute(
            0, 2, 3, 1).reshape(B * H, Dh, T)
        vh = torch.matmul(tok, q("wv")).reshape(B, T, H, Dh).permute(
            0, 2, 1, 3).reshape(B * H, T, Dh)
        masked = torch.matmul(qh, kh) * 0.25 + mask
        e = torch.exp(masked - masked.amax(2, keepdim=True))
        probs = e * torch.reciprocal(e.sum(2, keepdim=True))
        ctx = torch.matmul(probs, vh).reshape(B, H, T, Dh).permute(
            0, 2, 1, 3).reshape(1, B * T, D)
        res1 = h + (torch.matmul(ctx, q("wo")) + q("bo")).reshape(B, T, D)
        ln2 = ref.layer_norm(res1, q("ln2_gamma"), q("ln2_beta"), inv_d, eps)
        fc1 = torch.matmul(ln2.reshape(1, B * T, D), q("w1")) + q("b1")
        gelu = fc1 * (torch.erf(fc1 * 0.707106769) + 1.0) * 0.5
        return res1 + (torch.matmul(gelu, q("w2")) + q("b2")).reshape(B, T, D)

    def final(p, h):
        D = h.shape[2]
        f32 = torch.float32
        return ref.layer_norm(h, p["lnf_gamma"], p["lnf_beta"],
                              torch.tensor([[[1.0 / D]]], dtype=f32),
                              torch.tensor([[[1e-5]]], dtype=f32))
    return block, final


def worker(opts):
    import torch
    import torch.distributed as dist
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    torch.set_num_threads(1)
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    os.sched_setaffinity(0, {rank % os.cpu_count()})
    work = opts.work
    init = read_safetensors(torch, os.path.join(work, "init.safetensors"))
    x = read_npy(torch, os.path.join(work, "x.npy"))
    y = read_npy(torch, os.path.join(work, "y.npy"))
    M = opts.microbatches
    count = y.numel()  # the loss is normalised by the global element count

    if opts.model == "mlp":
        nl = sum(1 for n in init if n.startswith("w"))
        names = lambda ks: [f % k for k in ks for f in ("w%d", "b%d")]  # noqa
        halves = [list(range(nl // 2)), list(range(nl // 2, nl))]

        def run(p, h, part):
            return mlp_layers(torch, p, h, part, nl - 1)
        stage_names = [names(halves[0]), names(halves[1])]
        whole = list(range(nl))
        forward_all = lambda p, h: run(p, h, whole)  # noqa: E731
        forward_stage = lambda p, h, s: run(p, h, halves[s])  # noqa: E731
    else:
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "ref", os.path.join(ROOT, "scripts", "make-torch-reference.py"))
        ref = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ref)
        block, final = transformer_parts(torch, ref)
        stage_names = [[n for n in init if n.startswith("l0_")],
                       [n for n in init if not n.startswith("l0_")]]
        forward_all = lambda p, h: final(p, block(p, block(p, h, 0), 1))  # noqa
        forward_stage = lambda p, h, s: (  # noqa: E731
            block(p, h, 0) if s == 0 else final(p, block(p, h, 1)))

    def loss_of(out, target):
        d = out - target
        return (d * d).sum() * (1.0 / count)

    times, losses = [], []
    if world == 1:
        params = {n: torch.nn.Parameter(t) for n, t in init.items()}
        opt = torch.optim.SGD(params.values(), lr=LR)
        xs, ys = x.chunk(M), y.chunk(M)
        for _ in range(opts.steps):
            t0 = time.perf_counter()
            total = 0.0
            for xm, ym in zip(xs, ys):
                loss = loss_of(forward_all(params, xm), ym)
                loss.backward()
                total += loss.item()
            opt.step()
            opt.zero_grad()
            times.append((time.perf_counter() - t0) * 1e3)
            losses.append(total)
    else:
        from torch.distributed.pipelining import (PipelineStage,
                                                  Schedule1F1B, ScheduleGPipe)
        dist.init_process_group("gloo", rank=rank, world_size=world)

        class Stage(torch.nn.Module):
            def __init__(self, s):
                super().__init__()
                self.s = s
                self.p = torch.nn.ParameterDict(
                    {n: torch.nn.Parameter(init[n]) for n in stage_names[s]})

            def forward(self, h):
                return forward_stage(self.p, h, self.s)

        module = Stage(rank)
        stage = PipelineStage(module, rank, world, torch.device("cpu"))
        cls = Schedule1F1B if opts.schedule == "1f1b" else ScheduleGPipe
        schedule = cls(stage, n_microbatches=M, loss_fn=loss_of,
                       scale_grads=False)
        opt = torch.optim.SGD(module.parameters(), lr=LR)
        for _ in range(opts.steps):
            dist.barrier()
            t0 = time.perf_counter()
            mb_losses = []
            if rank == 0:
                schedule.step(x)
            else:
                schedule.step(target=y, losses=mb_losses)
            opt.step()
            opt.zero_grad()
            ms = torch.tensor([(time.perf_counter() - t0) * 1e3])
            dist.all_reduce(ms, op=dist.ReduceOp.MAX)
            times.append(float(ms))
            losses.append(float(sum(l.item() for l in mb_losses)))
        dist.destroy_process_group()
    if rank == world - 1:
        print(json.dumps({"times": times, "losses": losses}))


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

def ensure_venv(path):
    py = os.path.join(path, "bin", "python")
    if os.path.exists(py) and subprocess.run(
            [py, "-c", "import torch"], capture_output=True).returncode == 0:
        return py
    print("creating a venv with PyTorch in %s" % path, flush=True)
    subprocess.run([sys.executable, "-m", "venv", path], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "torch"], check=True)
    return py


def run_torch(py, work, model, ranks, m, schedule, steps):
    args = [py, os.path.abspath(__file__), "--worker", "--work", work,
            "--model", model, "--microbatches", str(m), "--schedule",
            schedule, "--steps", str(steps)]
    env = dict(os.environ, OMP_NUM_THREADS="1", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(29500 + os.getpid() % 1000),
               WORLD_SIZE=str(ranks))
    # Rank r on core r (mod the cores), as pipewave-run --bind-to core
    # places pipewave's ranks.
    cores = os.cpu_count() or 1
    procs = [subprocess.Popen(["taskset", "-c", str(r % cores)] + args,
                              env=dict(env, RANK=str(r)),
                              stdout=subprocess.PIPE, text=True)
             for r in range(ranks)]
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit("PyTorch run failed: %s" % " ".join(args))
    return json.loads(outs[-1].strip().splitlines()[-1])


def compile_pipewave(build, model_file, out, ranks, m, schedule, matmul):
    cmd = [os.path.join(build, "bin", "pipewave-compile"), model_file,
           "-o", out, "--stages", str(ranks), "--microbatches", str(m),
           "--schedule", schedule, "--matmul", matmul, "--quiet"]
    subprocess.run(cmd, check=True)


def run_pipewave(build, work, exe, ranks, steps, trace=None):
    log = os.path.join(work, "log.json")
    args = [exe, "--init", os.path.join(work, "init.safetensors"),
            "--data", "x=" + os.path.join(work, "x.npy"),
            "--data", "y=" + os.path.join(work, "y.npy"),
            "--steps", str(steps), "--optimizer", "sgd", "--lr", str(LR),
            "--log-json", log]
    if trace:
        args += ["--trace", trace]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if ranks == 1:
        cmd = ["taskset", "-c", "0"] + args
    else:
        cmd = [os.path.join(build, "bin", "pipewave-run"), "--bind-to", "core",
               "-n", str(ranks)] + args
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    times, losses = [], []
    with open(log) as f:
        for line in f:
            rec = json.loads(line)
            times.append(rec["time_ms"])
            losses.append(rec["loss"])
    return {"times": times, "losses": losses}


def summary(run):
    t = run["times"][1:]
    return statistics.median(t), min(t)


def sgemm_rate(py):
    code = ("import torch,time\ntorch.set_num_threads(1)\n"
            "a=torch.randn(256,512);b=torch.randn(512,512)\nbest=1e9\n"
            "for _ in range(20):\n t=time.perf_counter();torch.mm(a,b)\n"
            " best=min(best,time.perf_counter()-t)\n"
            "print(2*256*512*512/best/1e9)\n")
    out = subprocess.run(["taskset", "-c", "0", py, "-c", code],
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip())


OPENBLAS_RATE = r"""
import ctypes, os, time
lib = ctypes.CDLL("libopenblas.so.0")
lib.openblas_set_num_threads(1)
lib.openblas_get_corename.restype = ctypes.c_char_p
M, N, K = 256, 512, 512
a = (ctypes.c_float * (M * K))(*([0.5] * (M * K)))
b = (ctypes.c_float * (K * N))(*([0.25] * (K * N)))
c = (ctypes.c_float * (M * N))()
f = ctypes.c_float
best = 1e9
for _ in range(20):
    t = time.perf_counter()
    lib.cblas_sgemm(101, 111, 111, M, N, K, f(1), a, K, b, N, f(0), c, N)
    best = min(best, time.perf_counter() - t)
print(2 * M * N * K / best / 1e9, lib.openblas_get_corename().decode())
"""


def openblas_rate(coretype=None):
    """Single-core sgemm rate of the OpenBLAS pipewave's binaries load, with
    OPENBLAS_CORETYPE=coretype when given (else as this environment says),
    and the name of its kernels; (None, None) without OpenBLAS."""
    env = dict(os.environ)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    try:
        out = subprocess.run(["taskset", "-c", "0", sys.executable, "-c",
                              OPENBLAS_RATE], capture_output=True, text=True,
                             check=True, env=env).stdout.split()
        return float(out[0]), out[1]
    except (subprocess.CalledProcessError, IndexError, ValueError):
        return None, None


def wait_fractions(path):
    """Per rank (trace pid), the share of its steps 2..N spent waiting for
    messages (the trace's recv and send-wait spans), from the end of its
    first optimizer update to the end of its last."""
    with open(path) as f:
        events = json.load(f)
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    ranks = {}
    for e in events:
        if e.get("ph") == "X":
            ranks.setdefault(e["pid"], []).append(e)
    out = {}
    for pid, spans in sorted(ranks.items()):
        ends = sorted(e["ts"] + e["dur"] for e in spans
                      if e.get("cat") == "optimizer")
        if len(ends) < 2:
            continue
        start, end = ends[0], ends[-1]
        waited = sum(e["dur"] for e in spans
                     if e.get("cat") in ("recv", "send")
                     and start <= e["ts"] < end)
        out[pid] = waited / (end - start)
    return out


def trace_ratio(path):
    """Median backward / forward time per microbatch from a --trace file."""
    with open(path) as f:
        events = json.load(f)
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    fwd, bwd = [], []
    for e in events:
        if e.get("ph") != "X" or e.get("cat") != "compute":
            continue
        name = e.get("name", "")
        if name.startswith("F"):
            fwd.append(e["dur"])
        elif name.startswith("B"):
            bwd.append(e["dur"])
    if not fwd or not bwd:
        return None
    return statistics.median(fwd), statistics.median(bwd)


class Rates:
    """Single-core sgemm rates measured through the run (torch.mm and the
    OpenBLAS pipewave's ranks load). The machine may run slow for seconds at
    a time; the ideal steps use the highest rate seen, the core's speed
    outside such spells, so a spell during one measurement cannot make
    either framework look closer to the ideal than it is."""

    def __init__(self, py):
        self.py = py
        self.seen = {"torch.mm": [], "OpenBLAS": []}
        # The kernels pipewave's ranks run (runtime_core): the coretype
        # to measure them with, their name (None without OpenBLAS), and why.
        self.coretype = None
        self.core = openblas_rate()[1]
        forced = os.environ.get("OPENBLAS_CORETYPE")
        self.why = ("as OPENBLAS_CORETYPE=%s says" % forced if forced
                    else "OpenBLAS's choice for this CPU")
        if self.core and not forced and runtime_core(self.core) != self.core:
            self.coretype = runtime_core(self.core)
            self.why = ("pipewave's ranks' choice: OpenBLAS does not know "
                        "this CPU and chose %s" % self.core)
            self.core = self.coretype

    def measure(self):
        self.seen["torch.mm"].append(sgemm_rate(self.py))
        rate = openblas_rate(self.coretype)[0] if self.core else None
        if rate:
            self.seen["OpenBLAS"].append(rate)

    def lines(self):
        return ["sgemm rates measured through the run (GFLOP/s; the ideals "
                "use the highest): " + "; ".join(
                    "%s %s" % (name, " ".join("%.1f" % r for r in seen))
                    for name, seen in self.seen.items() if seen)]


def ideal_lines(rates, full_batch, pipelined):
    """The MLP's ideal steps at the highest sgemm rates seen: the 1-rank
    full batch against both frameworks' medians, the 2-rank 1F1B step
    against pipewave's."""
    widths, batch, layers = 512, 256, 8
    flops = 2 * batch * widths * widths * (3 * layers - 1)
    out = rates.lines()
    best = {name: max(seen) for name, seen in rates.seen.items() if seen}
    if full_batch:
        # One rank, no pipeline: the matmuls alone bound both steps.
        pw, pt = full_batch
        for name, r in best.items():
            ideal = flops / (r * 1e9) * 1e3
            out.append("ideal 1-rank full-batch step at %s's %.1f GFLOP/s: "
                       "%.1f ms; pipewave median %.1f ms = %.2f x ideal, "
                       "PyTorch median %.1f ms = %.2f x ideal"
                       % (name, r, ideal, pw, pw / ideal, pt, pt / ideal))
    if pipelined:
        m, pw = pipelined
        for name, r in best.items():
            ideal = flops / 2 / (r * 1e9) * (m + 1) / m * 1e3
            out.append("ideal 2-rank 1F1B step at %s's %.1f GFLOP/s: %.1f "
                       "ms; pipewave median %.1f ms = %.2f x ideal"
                       % (name, r, ideal, pw, pw / ideal))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", help="pipewave build directory")
    ap.add_argument("--venv", help="venv with PyTorch (created if missing)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--only", choices=sorted(WORKLOADS))
    ap.add_argument("--matmul", default="auto",
                    help="pipewave-compile --matmul (default auto)")
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--microbatches", type=int, default=1,
                    help=argparse.SUPPRESS)
    ap.add_argument("--schedule", default="gpipe", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker(opts)
    if not opts.build:
        ap.error("--build is required")
    build = os.path.abspath(opts.build)
    tmp = tempfile.mkdtemp(prefix="pw-peer-")
    py = ensure_venv(opts.venv or os.path.join(tmp, "venv"))
    import make_inputs

    print("load average: %.2f %.2f %.2f" % os.getloadavg())
    print("cpu: %s, %d cores" % (cpu_name(), os.cpu_count()))
    torch_version = subprocess.run(
        [py, "-c", "import torch; print(torch.__version__)"],
        capture_output=True, text=True).stdout.strip()
    print("PyTorch %s; pipewave --matmul=%s; steps per run %d (step 1 left "
          "out), %d rounds ABAB" % (torch_version, opts.matmul, opts.steps,
                                    opts.rounds), flush=True)
    rates = Rates(py)
    rates.measure()
    print("single-core sgemm (torch.mm 256x512x512, best of 20): "
          "%.1f GFLOP/s" % rates.seen["torch.mm"][-1], flush=True)
    if rates.seen["OpenBLAS"]:
        print("single-core sgemm (OpenBLAS cblas_sgemm 256x512x512, best of "
              "20): %.1f GFLOP/s, kernels %s (%s)"
              % (rates.seen["OpenBLAS"][-1], rates.core, rates.why),
              flush=True)

    for model in ([opts.only] if opts.only else list(WORKLOADS)):
        work = os.path.join(tmp, model)
        os.makedirs(work, exist_ok=True)
        if model == "mlp":
            model_file = os.path.join(work, "mlp.mlir")
            with open(model_file, "w") as f:
                subprocess.run([sys.executable,
                                os.path.join(ROOT, "scripts", "gen-mlp.py"),
                                "--layers", "8", "--width", "512", "--batch",
                                "256", "--in", "512", "--out", "512"],
                               check=True, stdout=f)
        else:
            model_file = os.path.join(ROOT, "examples", "transformer.mlir")
        make_inputs.write_inputs(model_file, work)
        print("\n## %s\n" % model)
        print("| configuration | pipewave median / min (ms) | "
              "PyTorch median / min (ms) | pipewave / PyTorch (median of "
              "rounds) | losses (5 steps) |")
        print("|---|---|---|---|---|", flush=True)
        after, full_batch, pipelined = [], None, None
        for name, ranks, m, schedule in CONFIGS:
            m = m or WORKLOADS[model]
            exe = os.path.join(work, "pw-%d-%d-%s" % (ranks, m, schedule))
            compile_pipewave(build, model_file, exe, ranks, m, schedule,
                             opts.matmul)
            pw_runs, pt_runs, ratios = [], [], []
            for _ in range(opts.rounds):
                a = run_pipewave(build, work, exe, ranks, opts.steps)
                b = run_torch(py, work, model, ranks, m, schedule, opts.steps)
                pw_runs.append(a)
                pt_runs.append(b)
                ratios.append(summary(a)[0] / summary(b)[0])
            agree = max(abs(p - q) / max(abs(q), 1e-30) for p, q in zip(
                pw_runs[0]["losses"][:COMPARE_STEPS],
                pt_runs[0]["losses"][:COMPARE_STEPS]))
            fmt = lambda runs: " ".join(  # noqa: E731
                "%.1f/%.1f" % summary(r) for r in runs)
            print("| %s (M=%d) | %s | %s | %.2f (%s) | max rel. diff %.1e |"
                  % (name, m, fmt(pw_runs), fmt(pt_runs),
                     statistics.median(ratios),
                     " ".join("%.2f" % r for r in ratios), agree),
                  flush=True)
            if model == "mlp":
                rates.measure()
            if model == "mlp" and ranks == 1 and m == 1:
                full_batch = (
                    statistics.median(summary(r)[0] for r in pw_runs),
                    statistics.median(summary(r)[0] for r in pt_runs))
            if model == "mlp" and ranks == 2 and schedule == "1f1b":
                pipelined = (m, statistics.median(summary(r)[0]
                                                  for r in pw_runs))
        if model == "mlp":
            after = ideal_lines(rates, full_batch, pipelined)
        # The ideal steps, after the table.
        for line in after:
            print("\n" + line, flush=True)
        print(flush=True)
        # Backward / forward per microbatch from pipewave's trace.
        m = WORKLOADS[model]
        exe = os.path.join(work, "pw-2-%d-1f1b" % m)
        trace = os.path.join(work, "trace.json")
        run_pipewave(build, work, exe, 2, opts.steps, trace=trace)
        r = trace_ratio(trace)
        if r:
            print("pipewave --trace, 2 ranks 1F1B: forward %.3f ms, backward "
                  "%.3f ms per microbatch (medians): backward / forward %.2f"
                  % (r[0] / 1e3, r[1] / 1e3, r[1] / r[0]))
        waits = wait_fractions(trace)
        if waits:
            print("pipewave --trace, 2 ranks 1F1B: share of the step each rank "
                  "waits for messages: " + ", ".join(
                      "rank %s %.1f%%" % (pid, 100 * w)
                      for pid, w in waits.items()))
    print("\nload average after: %.2f %.2f %.2f" % os.getloadavg())


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    main()
