//===- pipewave-calibrate.cpp - Measure this machine as a device ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
//   pipewave-calibrate [--name NAME] [-o FILE] [--steps N] [--passes N]
//                      [--quick] [--check DEVICE]
//                      [--no-comm] [--bin-dir DIR] [--work-dir DIR]
//                      [--target cuda --base DEVICE] [--compile-only]
//
// Times short microbenchmarks on the machine at hand through the code the
// CPU target generates (one-stage models compiled by pipewave-compile and
// run by pipewave-run, Models.h) and the runtime's MPI backend between two
// ranks, and writes them as a device file in the format of
// data/devices/*.json with a "calibration" object
// (pipewave/Simulator/Calibration.h says how the cost model uses it).
// matmulKernels times each class's kernels --passes times (at least twice),
// alternating which goes first, and keeps the fastest of each. Everything
// after it runs in --passes passes (Compute.h), each figure the median over
// them:
//
//   actionSeconds,             a one-op model's F, plus the median time
//                              between an action's slice and the next in
//                              a one-rank training run of 4 microbatches
//                              of a 4-parameter model (the runtime's work
//                              between actions); the slope of a chain of
//   fusedOpSeconds             32 element-wise ops on 8 floats (which the
//                              compiler fuses, as it fuses them in models)
//   opSeconds                  the slope of a chain of 32 tiny matmuls
//                              (each its own loop nest and buffer)
//   matmul                     rate of x [M, K] times [1, K, N] for small,
//                              skinny and square shapes and a weight
//                              gradient's (N 512, K 64)
//   matmulNT, matmulTN         rates of x [M, K] times [1, N, K]
//                              transposed (M 1 to 256; N, K 32 to 512)
//                              and of [1, K, M] transposed times
//                              [1, K, N] (M = N 32 to 512, K 4 to 256:
//                              a weight gradient), each folded into the
//                              kernel as in models (CPU only)
//   elementwise, reduction,    one tosa.add, reduce_sum (innermost and
//   outerReduction, movement   outer axis) and transpose each of 64x64 to
//                              1024x1024 floats
//   transpose                  transposes of rows x cols, each of 64, 256,
//                              512 and 1024
//   elementwiseFlopsPerSecond  the fastest tosa.add (1 flop an element)
//   transcendentalFlops...     one tosa.exp (8 flops an element)
//   transcendental             one tosa.erf, tosa.tanh and tosa.sigmoid
//                              each (10 flops an element; CPU only)
//   accumulate*, copy*,        the runtime's gradient accumulation (caches
//                              evicted, and in cache), a
//   nonfiniteCheck             memcpy and the scan for non-finite values,
//                              timed in this process
//   optimizer*                 Adam steps of 8x8 to 1024x1024 parameters
//   optimizerCold              Adam steps of models of 1 to 32 tensors of
//                              1 MiB (parameters out of cache)
//   intraNode, allReduce       ping-pong and all-reduce between two ranks
//   pointToPoint               ping-pong one-way times of 8 B to 4 MiB;
//                              at each size the CPU time of an isend
//                              and of an irecv and its wait once the
//                              message is there
//   coldOperand                chains of 64 x 512 x 512 matmuls on 2 to
//                              32 distinct weights against one weight:
//                              the rate of reading parameters not in cache
//                              (none at the one weight's 1 MiB)
//   cores                      the cores this process may run on
//   matmulKernels              the vectorised kernel and OpenBLAS per
//                              matmul class (MatmulKernels.h), measured
//                              first: every later model compiles with
//                              the choice they make, as models will
//
// --target cuda measures a GPU the same way through the code the CUDA
// target generates (each binary run directly on this process's GPU):
// fixed costs, matmul (cuBLAS), element-wise, reduction and transpose
// rates by size, and the Adam step, each stage call waited for
// (runtime.md, "Trace format"). Not measured there: the accumulation and
// copies (priced as the element-wise add of the same bytes, which is what
// the device's kernels do), cold parameters and the links, which with the
// peaks and the memory come from the --base device file. --compile-only
// compiles every model into --work-dir and runs nothing; the same command
// without it, on a machine that has the GPU but not the compiler, then runs
// those binaries (each with a NAME.key of what it was compiled from).
//
// The file goes to FILE, else to the per-user cache
// (pipewave/Simulator/Device.h: calibratedDevicePath(NAME)), from where
// --device NAME (pipewave-compile, sched-simulate, pipe-plan,
// pipewave-plan) reads it; the calibration named "host" is the CPU
// target's default device. --check DEVICE writes nothing: it times one
// pass and compares it with DEVICE's calibration (Check.h), to tell
// whether the machine still runs at the speed it was calibrated at.
//
//===----------------------------------------------------------------------===//

#include "Check.h"
#include "Compute.h"
#include "MatmulKernels.h"
#include "Measure.h"
#include "Models.h"

#include "pipewave/Simulator/Device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <string>
#include <unistd.h>

using namespace pipewave;
using namespace pipewave::calibrate;
namespace fs = std::filesystem;

namespace {

/// Passes further apart in speed than this get a warning.
constexpr double kSpreadWarning = 1.25;

/// `value` with `digits` decimals.
std::string formatFixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

const char *const kUsage = R"(usage: pipewave-calibrate [options]

Measures this machine (which matmul kernel, vectorised or OpenBLAS, is
faster per matmul class; matmul rates by shape, element-wise, reduction and
copy bandwidth, fixed costs per op and per action, the Adam step, MPI
latency, bandwidth and all-reduce between two ranks) through the code the
CPU target generates, and writes a device file for --device.

  --name NAME      the device's name (default host: the CPU target's
                   default device once cached)
  -o FILE          write the device file here instead of the cache
  --steps N        steps each microbenchmark runs (default 30)
  --passes N       run the benchmarks N times in turn and keep each one's
                   median over the passes (default 3; --quick: 1), so that
                   a slow spell of a shared machine moves few figures; it
                   prints how fast each pass ran and warns when they ran
                   more than 1.25x apart; the matmul kernel choice keeps
                   each kernel's fastest of N (at least 2) timings, which
                   kernel goes first alternating
  --quick          fewer shapes and steps (a smoke test, not a calibration)
  --no-comm        skip the two-rank measurements (links of the cpu file)
  --bin-dir DIR    where pipewave-compile and pipewave-run are (default:
                   beside this program)
  --work-dir DIR   keep the models, binaries and traces here
  --target cuda    measure this machine's GPU through the CUDA target's
                   code instead (needs --base; no two-rank measurements)
  --base DEVICE    with --target cuda: the device file (shipped name or
                   file) whose links, peaks and memory the calibration
                   keeps, e.g. h200
  --compile-only   compile every benchmark into --work-dir and run nothing
                   (a later run with the same --work-dir on a machine
                   without pipewave-compile runs those binaries)
  --check DEVICE   write nothing: time one pass of the compute benchmarks
                   (about a minute) and compare it with what DEVICE's
                   calibration (a name or a device file, as --device takes
                   it) predicts for the same shapes; prints the machine's
                   time over the predicted one per figure and their median,
                   and warns when that is off by over 1.25x
)";

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "pipewave-calibrate: error: %s\n", message.c_str());
  std::exit(1);
}

std::string firstLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// "model name" of /proc/cpuinfo, or "".
std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != line.npos)
      return line.substr(line.find(':') + 2);
  return "";
}

int usableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
  return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
}

/// How the figures were reduced, for the device file's source: "median of
/// N steps[, then the median over P passes, which ran Sx apart]".
std::string mediansText(int steps, int passes, double spread) {
  return "median of " + std::to_string(steps - 1) + " steps" +
         (passes > 1
              ? ", then the median over " + std::to_string(passes) +
                    " passes, which ran " + formatFixed(spread, 2) + "x apart"
              : "");
}

/// Writes `device` to `output` and removes the work directory unless kept.
void writeDevice(const sim::DeviceSpec &device, const std::string &output,
                 bool keep, const std::string &workDir,
                 const std::string &name) {
  std::error_code ec;
  fs::path target(output);
  if (target.has_parent_path())
    fs::create_directories(target.parent_path(), ec);
  std::ofstream out(output);
  out << sim::toJson(device);
  if (!out)
    die("cannot write '" + output + "'");
  out.close();
  if (!keep)
    fs::remove_all(workDir, ec);
  std::fprintf(stderr, "pipewave-calibrate: wrote %s (device '%s')\n",
               output.c_str(), name.c_str());
}

} // namespace

int main(int argc, char **argv) {
  std::string name = sim::kHostDeviceName, output, binDir, workDir, commWorker,
              check, target = "cpu", base;
  int steps = 30, passes = 3;
  bool quick = false, comm = true, passesGiven = false, compileOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        die(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "-h" || flag == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (flag == "--name") {
      name = value();
    } else if (flag == "-o") {
      output = value();
    } else if (flag == "--steps") {
      steps = std::atoi(value().c_str());
      if (steps < 3)
        die("--steps must be at least 3");
    } else if (flag == "--passes") {
      passes = std::atoi(value().c_str());
      if (passes < 1)
        die("--passes must be at least 1");
      passesGiven = true;
    } else if (flag == "--quick") {
      quick = true;
    } else if (flag == "--no-comm") {
      comm = false;
    } else if (flag == "--bin-dir") {
      binDir = value();
    } else if (flag == "--work-dir") {
      workDir = value();
    } else if (flag == "--target") {
      target = value();
      if (target != "cpu" && target != "cuda")
        die("--target expects cpu or cuda, got '" + target + "'");
    } else if (flag == "--base") {
      base = value();
    } else if (flag == "--compile-only") {
      compileOnly = true;
    } else if (flag == "--check") {
      check = value();
    } else if (flag == "--comm-worker") {
      commWorker = value();
    } else {
      die("unknown argument '" + flag + "' (try --help)");
    }
  }
  if (!commWorker.empty())
    return runCommWorker(argc, argv, commWorker, quick);
  if (name.empty() || name.find('/') != name.npos || name.size() > 64)
    die("--name expects a plain name, got '" + name + "'");
  bool gpu = target == "cuda";
  std::optional<sim::DeviceSpec> baseDevice;
  if (gpu) {
    if (base.empty())
      die("--target cuda needs --base DEVICE: the device file whose links, "
          "peaks and memory the GPU's calibration keeps (a shipped GPU such "
          "as h100 or h200, or a file)");
    std::string error;
    baseDevice = sim::lookupDevice(base, error);
    if (!baseDevice)
      die("--base: " + error);
    if (!check.empty())
      die("--check compares a CPU calibration; it does not take --target "
          "cuda");
    comm = false;
    if (name == sim::kHostDeviceName)
      name = baseDevice->name + "-calibrated";
  } else if (!base.empty()) {
    die("--base is for --target cuda (the CPU target's links are measured)");
  }
  if (compileOnly && workDir.empty())
    die("--compile-only needs --work-dir (where the binaries stay)");
  if (output.empty() && check.empty() && !compileOnly) {
    output = sim::calibratedDevicePath(name);
    if (output.empty())
      die("no cache directory (set PIPEWAVE_CACHE_DIR or HOME) and no -o");
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    self = argv[0];
  if (binDir.empty())
    binDir = self.parent_path().string();
  bool keep = !workDir.empty();
  if (!keep)
    workDir = (fs::temp_directory_path() /
               ("pipewave-calibrate-" + std::to_string(getpid())))
                  .string();
  fs::create_directories(workDir, ec);
  if (ec)
    die("cannot create '" + workDir + "': " + ec.message());
  if (quick) {
    steps = std::min(steps, 6);
    if (!passesGiven)
      passes = 1;
  }
  // The stage code runs single-threaded BLAS in the benchmarks too.
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  std::string load = firstLine("/proc/loadavg");
  std::fprintf(stderr, "pipewave-calibrate: load average %s\n", load.c_str());
  Runner runner(binDir, workDir, steps);
  runner.setCuda(gpu);
  runner.setCompileOnly(compileOnly);
  if (!check.empty()) {
    int code = checkAgainst(runner, check, quick);
    if (!keep)
      fs::remove_all(workDir, ec);
    return code;
  }
  auto report = [](const char *what, double value, const char *unit) {
    std::fprintf(stderr, "  %-34s %.4g %s\n", what, value, unit);
  };

  sim::Calibration c;
  c.version = 2;
  c.cores = usableCores();
  // Which matmul kernel is faster per class; the models below compile with
  // that choice (--matmul=auto as pipewave-compile will then make it). A
  // GPU's matmuls are cuBLAS calls.
  if (!gpu) {
    std::string error;
    std::optional<std::vector<sim::MatmulKernelPoint>> kernels =
        measureMatmulKernels(runner, quick, quick ? 1 : std::max(passes, 2),
                             error);
    if (!kernels)
      die(error);
    c.matmulKernels = *kernels;
    for (const sim::MatmulKernelPoint &point : c.matmulKernels)
      std::fprintf(stderr,
                   "  matmul %-14s %gx%gx%g vector %.4g ms, blas %.4g ms: %s\n",
                   point.matmulClass.c_str(), point.m, point.k, point.n,
                   point.vectorSeconds * 1e3, point.blasSeconds * 1e3,
                   point.kernel.c_str());
    runner.setCompileFlags(" --matmul-choice=" +
                           matmulChoiceFlag(c.matmulKernels));
  }
  // The compute figures, in passes: every benchmark in turn, then again;
  // the last pass's figures are the medians over all of them.
  SamplePool loops;
  sim::Calibration kernels = c;
  for (int pass = 1; pass <= passes; ++pass) {
    bool last = pass == passes;
    if (passes > 1)
      std::fprintf(stderr, "pipewave-calibrate: pass %d of %d%s\n", pass,
                   passes, last ? " (medians over the passes)" : "");
    c = kernels;
    measureCompute(runner, loops, quick, c,
                   last ? Report(report)
                        : Report([](const char *, double, const char *) {}));
  }
  // How fast each pass ran against the medians: a shared machine's slow
  // spell shows as a pass whose every benchmark took longer.
  std::vector<double> speeds = passSpeeds({&runner.forwardSamples(), &loops});
  double spread = speedSpread(speeds);
  if (!speeds.empty()) {
    std::string line;
    for (double speed : speeds)
      line += (line.empty() ? "" : ", ") + formatFixed(speed, 2);
    std::fprintf(stderr,
                 "pipewave-calibrate: each pass's times over the medians: "
                 "%s\n",
                 line.c_str());
  }
  if (spread > kSpreadWarning)
    std::fprintf(
        stderr,
        "pipewave-calibrate: warning: the passes ran %.2fx apart in speed: "
        "the machine's speed changed during the calibration (other "
        "processes or virtual machines on its cores). Each figure is the "
        "median over the passes, which a spell in fewer than half of them "
        "does not set; calibrate on a quiet machine, or with more --passes, "
        "for figures that predict a quiet run.\n",
        spread);

  if (compileOnly) {
    if (!keep)
      fs::remove_all(workDir, ec);
    std::fprintf(stderr,
                 "pipewave-calibrate: compiled every benchmark into %s; "
                 "nothing was timed or written\n",
                 workDir.c_str());
    return 0;
  }

  sim::DeviceSpec device = gpu ? *baseDevice : *sim::findDevice("cpu");
  if (comm) {
    std::string error;
    std::optional<CommFigures> figures =
        measureComm(runner, self.string(), quick, error);
    if (!figures)
      die(error);
    device.intraNode = {figures->bytesPerSecond, figures->latencySeconds};
    c.allReduceBytesPerSecond = figures->allReduceBytesPerSecond;
    c.allReduceLatencySeconds = figures->allReduceLatencySeconds;
    report("point-to-point latency", figures->latencySeconds * 1e6, "us");
    report("point-to-point bandwidth", figures->bytesPerSecond * 1e-9, "GB/s");
    report("all-reduce latency", c.allReduceLatencySeconds * 1e6, "us");
    report("all-reduce bandwidth", c.allReduceBytesPerSecond * 1e-9, "GB/s");
    for (const MessageFigures &m : figures->messages) {
      c.pointToPoint.push_back(
          {m.bytes, m.seconds, m.sendSeconds, m.recvSeconds, m.deliverSeconds});
      std::string size =
          "message of " + std::to_string(static_cast<int64_t>(m.bytes)) + " B";
      report((size + ", one way").c_str(), m.seconds * 1e6, "us");
      report((size + ", send").c_str(), m.sendSeconds * 1e6, "us");
      report((size + ", receive").c_str(), m.recvSeconds * 1e6, "us");
      report((size + ", receive after computing").c_str(),
             m.deliverSeconds * 1e6, "us");
    }
  }

  device.name = name;
  if (gpu) {
    // The base's links, peaks and memory (other costed ops use the peaks).
    device.description = "A GPU as pipewave-calibrate --target cuda measured "
                         "it; otherwise " +
                         baseDevice->name + ": " + baseDevice->description;
    device.source =
        "pipewave-calibrate --target cuda" +
        std::string(quick ? " --quick" : "") +
        ": one-stage models of the CUDA target run on the GPU, each stage "
        "call waited for (" +
        mediansText(steps, passes, spread) +
        "); links, peaks and memory are the " + baseDevice->name + " file's (" +
        baseDevice->source + ")";
    device.calibration = c;
    writeDevice(device, output, keep, workDir, name);
    return 0;
  }
  std::string model = cpuModel();
  device.description = "This machine as pipewave-calibrate measured it: " +
                       std::to_string(c.cores) + " cores" +
                       (model.empty() ? "" : " (" + model + ")");
  device.source = "pipewave-calibrate" + std::string(quick ? " --quick" : "") +
                  ": one-stage models of the CPU target timed with "
                  "pipewave-run (" +
                  mediansText(steps, passes, spread) + ")" +
                  (comm ? ", MPI ping-pong and all-reduce between two ranks"
                        : ", links of the cpu file") +
                  "; load average " + load.substr(0, load.find(' ', 10)) +
                  " at the start; interNode is the cpu file's";
  double peak = 0;
  for (const sim::MatmulPoint &point : c.matmul)
    peak = std::max(peak, point.flopsPerSecond);
  device.fp32FlopsPerSecond = peak;
  device.tf32FlopsPerSecond = device.fp16FlopsPerSecond = 0;
  device.memoryBytesPerSecond = c.elementwise.back().bytesPerSecond;
  device.memoryBytes = static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                       static_cast<double>(sysconf(_SC_PAGESIZE));
  device.calibration = c;
  writeDevice(device, output, keep, workDir, name);
  return 0;
}
