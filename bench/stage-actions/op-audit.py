#!/usr/bin/env python3
"""op-audit.py BUILD_DIR PIPE_FILE FUNCTION [DEVICE] [REPS]: every distinct
op of one stage function (op name and operand/result types) as a one-op
model, predicted by the cost model on DEVICE (sched-simulate, the F of a
one-stage inference pipeline) against its time measured by
actions_runtime.c (bench/stage-actions). Constants and shape operands are
copied into the model; every other operand becomes an argument. Prints,
per op, the count in the function, predicted and measured (fastest, CPU
median) per call in µs, the ratio, and count x (measured - predicted),
the op's share of the function's error; largest shares first.

PIPE_FILE is `pipewave-compile --emit=pipe` output. Run with
OPENBLAS_NUM_THREADS=1 like the runtime; OPENBLAS_CORETYPE, when unset, is
set to the kernels the runtime's ranks run (scripts/openblas-coretype.py).
The one-op F includes the device's actionSeconds on both sides (the
harness's call of a one-op function).
"""

import importlib
import os
import re
import subprocess
import sys
import tempfile

FREE = ("tosa.reshape", "tosa.const_shape", "tosa.const", "tosa.identity")


def function_body(text, name):
    start = text.index("func.func private @%s(" % name)
    header_end = text.index("{\n", start)
    end = text.index("\n  }\n", start)
    return text[start:header_end], text[header_end + 2:end].split("\n")


def arg_types(header):
    return dict(re.findall(r"(%arg\d+): (tensor<[^>]*>)", header))


def parse(line):
    """(results, op name, operands, operand types, result types) or None."""
    m = re.match(r"\s*(%[\w:#]+(?:, %\w+)*) = \"?([\w.]+)\"?(.*)$", line)
    if not m:
        return None
    results, op, rest = m.group(1), m.group(2), m.group(3)
    sig = rest[rest.rfind(" : ") + 3:] if " : " in rest else ""
    operands = re.findall(r"%[\w#]+", rest[:rest.rfind(" : ")] if " : " in rest else rest)
    if sig.startswith("("):
        ins, outs = sig.split(") -> ")
        ins = split_types(ins[1:])
    else:
        ins, outs = [], sig
    outs = split_types(outs.strip("()"))
    return results, op, operands, ins, outs, line


def split_types(text):
    types, depth, cur = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            types.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        types.append(cur.strip())
    return types


def main(argv):
    build, pipe, function = argv[1:4]
    device = argv[4] if len(argv) > 4 else "host"
    reps = argv[5] if len(argv) > 5 else "20"
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..", "..")
    sys.path.insert(0, os.path.join(root, "scripts"))
    coretype = importlib.import_module("openblas-coretype")
    own = coretype.own_core()
    if own and not os.environ.get("OPENBLAS_CORETYPE"):
        os.environ["OPENBLAS_CORETYPE"] = coretype.runtime_core(own)
    header, body = function_body(open(pipe).read(), function)
    types = arg_types(header)
    definitions, groups = {}, {}
    for line in body:
        p = parse(line)
        if not p:
            continue
        results, op, operands, ins, outs, text = p
        for r in results.split(", "):
            definitions[r.split(":")[0]] = (op, text)
        if op in FREE or not outs:
            continue
        key = (op, tuple(ins), tuple(outs))
        if key not in groups:
            groups[key] = [0, operands, text]
        groups[key][0] += 1
    work = tempfile.mkdtemp()
    runtime = os.path.join(work, "actions_runtime.o")
    subprocess.check_call(["cc", "-O2", "-c", "-I" + os.path.join(root, "runtime", "include"),
                           os.path.join(here, "actions_runtime.c"), "-o", runtime])
    rows = []
    for index, ((op, ins, outs), (count, operands, text)) in enumerate(sorted(groups.items())):
        args, prelude, seen = [], [], set()
        for name, typ in zip(operands, ins):
            if name in seen:
                continue
            seen.add(name)
            d = definitions.get(name)
            if d and d[0] in ("tosa.const_shape", "tosa.const"):
                prelude.append(d[1].strip())
            elif typ.startswith("tensor<"):
                args.append("%s: %s {pipe.name = \"a%d\"}" % (name, typ, len(args)))
        m = re.match(r"\s*(%[\w:#]+(?:, %\w+)*) = ", text)
        results = m.group(1).split(", ")
        model = "func.func @main(%s) -> (%s) {\n  %s\n  %s\n  return %s : %s\n}\n" % (
            ", ".join(args), ", ".join(outs), "\n  ".join(prelude), text.strip(),
            ", ".join(results), ", ".join(outs))
        base = os.path.join(work, "op%d" % index)
        with open(base + ".mlir", "w") as f:
            f.write(model)
        compile_ = [os.path.join(build, "bin", "pipewave-compile"), base + ".mlir",
                    "--quiet", "--stages", "1", "--inference", "--schedule", "gpipe"]
        try:
            subprocess.check_output(compile_ + ["-o", base + ".pipe", "--emit=pipe"],
                                    stderr=subprocess.STDOUT)
            subprocess.check_output(compile_ + ["-o", base, "--runtime-lib=" + runtime],
                                    stderr=subprocess.STDOUT)
            report = subprocess.check_output(
                [os.path.join(build, "bin", "pipewave-opt"), base + ".pipe", "-o", "/dev/null",
                 "--sched-simulate=device=%s report=-" % device], text=True)
            timing = subprocess.check_output([base, reps], text=True)
        except subprocess.CalledProcessError as e:
            print("skipped %s %s: %s" % (op, ",".join(ins), e.output[-300:] if e.output else e),
                  file=sys.stderr)
            continue
        predicted = None
        inside = False
        for line in report.splitlines():
            if line.strip().startswith("stage ") and "function" in line:
                inside = True
                continue
            if inside and line.split() and line.split()[0] == "0":
                predicted = float(line.split()[2]) * 1e6
                break
        m = re.search(r"stage 0 F (\S+) (\S+) (\S+)", timing)
        best, cpu = float(m.group(1)), float(m.group(3))
        rows.append((count * (best - predicted), count, op, ",".join(ins), ",".join(outs),
                     predicted, best, cpu))
    rows.sort(key=lambda r: -abs(r[0]))
    print("| count | op | operands -> results | predicted (µs) | fastest (µs) | CPU median (µs) | predicted / fastest | count x (fastest - predicted) (µs) |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    total = 0
    for share, count, op, ins, outs, predicted, best, cpu in rows:
        total += share
        # A one-op model below the timer's resolution measures 0.
        ratio = "%.2f" % (predicted / best) if best > 0 else "-"
        print("| %d | %s | %s -> %s | %.1f | %.1f | %.1f | %s | %.0f |" % (
            count, op, ins, outs, predicted, best, cpu, ratio, share))
    print("\nsum of count x (fastest - predicted): %.0f µs" % total)


if __name__ == "__main__":
    main(sys.argv)
