//===- pipewave-calibrate.cpp - Measure this machine as a device ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
//   pipewave-calibrate [--name NAME] [-o FILE] [--steps N] [--quick]
//                      [--no-comm] [--bin-dir DIR] [--work-dir DIR]
//
// Times short microbenchmarks on the machine at hand through the code the
// CPU target generates (one-stage models compiled by pipewave-compile and
// run by pipewave-run, Models.h) and the runtime's MPI backend between two
// ranks, and writes them as a device file in the format of
// data/devices/*.json with a "calibration" object
// (pipewave/Simulator/Calibration.h says how the cost model uses it):
//
//   actionSeconds,             a one-op model's F; the slope of a chain of
//   fusedOpSeconds             32 element-wise ops on 8 floats (which the
//                              compiler fuses, as it fuses them in models)
//   opSeconds                  the slope of a chain of 32 tiny matmuls
//                              (each its own loop nest and buffer)
//   matmul                     rate of x [M, K] times [1, K, N] for small,
//                              skinny and square shapes
//   elementwise, reduction,    one tosa.add, reduce_sum (innermost and
//   outerReduction, movement   outer axis) and transpose each of 64x64 to
//                              1024x1024 floats
//   transpose                  transposes of rows x cols, each of 64, 256,
//                              512 and 1024
//   elementwiseFlopsPerSecond  the fastest tosa.add (1 flop an element)
//   transcendentalFlops...     one tosa.exp (8 flops an element)
//   accumulate*, copy*,        the runtime's gradient accumulation (caches
//                              evicted, and in cache), a
//   nonfiniteCheck             memcpy and the scan for non-finite values,
//                              timed in this process
//   optimizer*                 Adam steps of 8x8 to 1024x1024 parameters
//   optimizerCold              Adam steps of models of 1 to 32 tensors of
//                              1 MiB (parameters out of cache)
//   intraNode, allReduce       ping-pong and all-reduce between two ranks
//   pointToPoint               ping-pong one-way times of 8 B to 4 MiB
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
// The file goes to FILE, else to the per-user cache
// (pipewave/Simulator/Device.h: calibratedDevicePath(NAME)), from where
// --device NAME (pipewave-compile, sched-simulate, pipe-plan,
// pipewave-plan) reads it; the calibration named "host" is the CPU
// target's default device.
//
//===----------------------------------------------------------------------===//

#include "HostLoops.h"
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
  --quick          fewer shapes and steps (a smoke test, not a calibration)
  --no-comm        skip the two-rank measurements (links of the cpu file)
  --bin-dir DIR    where pipewave-compile and pipewave-run are (default:
                   beside this program)
  --work-dir DIR   keep the models, binaries and traces here
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

/// Measures `model`, dying with the failing command's output.
Timing timeOf(const Runner &runner, const Model &model,
              const std::string &name) {
  std::string error;
  std::optional<Timing> timing = runner.time(model, name, error);
  if (!timing)
    die(error);
  return *timing;
}

double positive(double seconds) { return std::max(seconds, 1e-9); }

} // namespace

int main(int argc, char **argv) {
  std::string name = sim::kHostDeviceName, output, binDir, workDir, commWorker;
  int steps = 30;
  bool quick = false, comm = true;
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
    } else if (flag == "--quick") {
      quick = true;
    } else if (flag == "--no-comm") {
      comm = false;
    } else if (flag == "--bin-dir") {
      binDir = value();
    } else if (flag == "--work-dir") {
      workDir = value();
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
  if (output.empty()) {
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
  if (quick)
    steps = std::min(steps, 6);
  // The stage code runs single-threaded BLAS in the benchmarks too.
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  std::string load = firstLine("/proc/loadavg");
  std::fprintf(stderr, "pipewave-calibrate: load average %s\n", load.c_str());
  Runner runner(binDir, workDir, steps);
  auto report = [](const char *what, double value, const char *unit) {
    std::fprintf(stderr, "  %-34s %.4g %s\n", what, value, unit);
  };

  sim::Calibration c;
  c.version = 2;
  c.cores = usableCores();
  // Which matmul kernel is faster per class; the models below compile with
  // that choice (--matmul=auto as pipewave-compile will then make it).
  {
    std::string error;
    std::optional<std::vector<sim::MatmulKernelPoint>> kernels =
        measureMatmulKernels(runner, quick, error);
    if (!kernels)
      die(error);
    c.matmulKernels = *kernels;
    for (const sim::MatmulKernelPoint &point : c.matmulKernels)
      std::fprintf(stderr, "  matmul %-27s vector %.4g ms, blas %.4g ms: %s\n",
                   point.matmulClass.c_str(), point.vectorSeconds * 1e3,
                   point.blasSeconds * 1e3, point.kernel.c_str());
    runner.setCompileFlags(" --matmul-choice=" +
                           matmulChoiceFlag(c.matmulKernels));
  }
  // Fixed costs: one tiny op, and the slope of a chain of them.
  const int chain = 32;
  double call =
      timeOf(runner, elementwiseChain("tosa.add", 1, 8, 1), "call").forward;
  double chained =
      timeOf(runner, elementwiseChain("tosa.add", 1, 8, chain), "ops").forward;
  c.fusedOpSeconds = std::max(0.0, (chained - call) / (chain - 1));
  c.actionSeconds = std::max(0.0, call - c.fusedOpSeconds);
  double matmul1 = timeOf(runner, matmulChain(1), "mm-chain-1").forward;
  double matmuls = timeOf(runner, matmulChain(chain), "mm-chain").forward;
  c.opSeconds = std::max(0.0, (matmuls - matmul1) / (chain - 1));
  report("per action", c.actionSeconds * 1e6, "us");
  report("per op", c.opSeconds * 1e6, "us");
  report("per fused element-wise op", c.fusedOpSeconds * 1e6, "us");

  // Bandwidths by size, from in-cache to a few MiB; one op each (the
  // compiler fuses chains of element-wise ops).
  // Fixed parts of a one-op model: the action and the op's own.
  double fixed = c.actionSeconds + c.opSeconds;
  double fixedFused = c.actionSeconds + c.fusedOpSeconds;
  std::vector<int64_t> sides =
      quick ? std::vector<int64_t>{64, 512}
            : std::vector<int64_t>{64, 128, 256, 512, 1024};
  for (int64_t side : sides) {
    double elements = static_cast<double>(side * side);
    std::string size = std::to_string(side) + "x" + std::to_string(side);
    double add = timeOf(runner, elementwiseChain("tosa.add", side, side, 1),
                        "add-" + size)
                     .forward;
    c.elementwise.push_back(
        {12 * elements, 12 * elements / positive(add - fixedFused)});
    double reduce =
        timeOf(runner, reduction(side, side), "reduce-" + size).forward;
    double reduced = 4 * (elements + side);
    c.reduction.push_back({reduced, reduced / positive(reduce - fixed)});
    double outer =
        timeOf(runner, reduction(side, side, /*axis=*/0), "reduce0-" + size)
            .forward;
    c.outerReduction.push_back({reduced, reduced / positive(outer - fixed)});
    double move =
        timeOf(runner, transpose(side, side), "transpose-" + size).forward;
    c.movement.push_back({8 * elements, 8 * elements / positive(move - fixed)});
    c.elementwiseFlopsPerSecond = std::max(
        c.elementwiseFlopsPerSecond, elements / positive(add - fixedFused));
    report(("add " + size).c_str(), c.elementwise.back().bytesPerSecond * 1e-9,
           "GB/s");
    report(("reduce_sum " + size).c_str(),
           c.reduction.back().bytesPerSecond * 1e-9, "GB/s");
    report(("reduce_sum axis 0 " + size).c_str(),
           c.outerReduction.back().bytesPerSecond * 1e-9, "GB/s");
    report(("transpose " + size).c_str(),
           c.movement.back().bytesPerSecond * 1e-9, "GB/s");
  }
  int64_t expSide = quick ? 128 : 512;
  double expElements = static_cast<double>(expSide * expSide);
  double exp =
      timeOf(runner, elementwiseChain("tosa.exp", expSide, expSide, 1), "exp")
          .forward;
  c.transcendentalFlopsPerSecond = 8 * expElements / positive(exp - fixedFused);
  report("element-wise (add, 1 flop each)", c.elementwiseFlopsPerSecond * 1e-9,
         "GFLOP/s");
  report("transcendental (exp, 8 flops each)",
         c.transcendentalFlopsPerSecond * 1e-9, "GFLOP/s");

  // Transposes by shape: the rate depends on the rows and the row length,
  // not only on the bytes (long rows read with a large stride). 512 is
  // measured, not interpolated: 512 x 512 weights are common, and a
  // 1024 x 1024 transpose can run 10x slower than 256 x 1024 (the strided
  // reads of 4 KiB rows conflict in the cache), which would drag the
  // interpolated 512 x 512 rate far below what it runs at.
  std::vector<int64_t> extents = quick
                                     ? std::vector<int64_t>{64, 512}
                                     : std::vector<int64_t>{64, 256, 512, 1024};
  for (int64_t rows : extents)
    for (int64_t cols : extents) {
      std::string size = std::to_string(rows) + "x" + std::to_string(cols);
      double t =
          timeOf(runner, transpose(rows, cols), "transpose2-" + size).forward;
      double bytes = 8.0 * rows * cols;
      c.transpose.push_back({static_cast<double>(rows),
                             static_cast<double>(cols),
                             bytes / positive(t - fixed)});
      report(("transpose " + size + " (by shape)").c_str(),
             c.transpose.back().bytesPerSecond * 1e-9, "GB/s");
    }

  // The runtime's gradient accumulation (after every B and W, per
  // parameter tensor) and contiguous copies, in this process.
  int loopReps = quick ? 10 : 40;
  c.accumulateSeconds = accumulateSeconds(8, loopReps, /*evict=*/false);
  report("gradient accumulation, fixed", c.accumulateSeconds * 1e6, "us");
  for (int64_t side : sides) {
    size_t count = static_cast<size_t>(side * side);
    double bytes = 4.0 * static_cast<double>(count);
    double acc = accumulateSeconds(count, loopReps);
    c.accumulate.push_back(
        {bytes, bytes / positive(acc - c.accumulateSeconds)});
    double warm = accumulateSeconds(count, loopReps, /*evict=*/false);
    c.accumulateWarm.push_back(
        {bytes, bytes / positive(warm - c.accumulateSeconds)});
    c.copy.push_back({bytes, bytes / positive(copySeconds(count, loopReps))});
    c.copyWarm.push_back(
        {bytes,
         bytes / positive(copySeconds(count, loopReps, /*evict=*/false))});
    c.nonfiniteCheck.push_back(
        {bytes, bytes / positive(nonfiniteCheckSeconds(count, loopReps))});
    report(("accumulate " + std::to_string(side) + "x" + std::to_string(side))
               .c_str(),
           c.accumulate.back().bytesPerSecond * 1e-9, "GB/s");
    report(("accumulate in cache " + std::to_string(side) + "x" +
            std::to_string(side))
               .c_str(),
           c.accumulateWarm.back().bytesPerSecond * 1e-9, "GB/s");
    report(
        ("copy " + std::to_string(side) + "x" + std::to_string(side)).c_str(),
        c.copy.back().bytesPerSecond * 1e-9, "GB/s");
    report(
        ("copy in cache " + std::to_string(side) + "x" + std::to_string(side))
            .c_str(),
        c.copyWarm.back().bytesPerSecond * 1e-9, "GB/s");
    report(("non-finite check " + std::to_string(side) + "x" +
            std::to_string(side))
               .c_str(),
           c.nonfiniteCheck.back().bytesPerSecond * 1e-9, "GB/s");
  }

  // Matmul rates: square, small-M (skinny activations) and narrow N or K.
  std::vector<int64_t> ms = quick ? std::vector<int64_t>{4, 64}
                                  : std::vector<int64_t>{1, 4, 16, 64, 256};
  std::vector<std::pair<int64_t, int64_t>> nks =
      quick ? std::vector<std::pair<int64_t, int64_t>>{{64, 64}}
            : std::vector<std::pair<int64_t, int64_t>>{
                  {32, 32}, {128, 128}, {512, 512}, {8, 512}, {512, 8}};
  for (auto [n, k] : nks)
    for (int64_t m : ms) {
      std::string label = "mm-" + std::to_string(m) + "x" + std::to_string(k) +
                          "x" + std::to_string(n);
      double t = timeOf(runner, matmul(m, n, k), label).forward;
      double flops = 2.0 * m * n * k;
      sim::MatmulPoint point{static_cast<double>(m), static_cast<double>(n),
                             static_cast<double>(k),
                             flops / positive(t - fixed)};
      c.matmul.push_back(point);
      report(("matmul M=" + std::to_string(m) + " N=" + std::to_string(n) +
              " K=" + std::to_string(k))
                 .c_str(),
             point.flopsPerSecond * 1e-9, "GFLOP/s");
    }

  // Parameters that do not stay in cache: chains of matmuls of a [64, 512]
  // activation by distinct 512 x 512 weights (1 MiB each) against the same
  // chain on one weight; the extra time per weight byte, by the chain's
  // footprint.
  {
    const int64_t rows = 64, side = 512;
    const double weightBytes = 4.0 * side * side;
    const int warmCount = 8;
    // The rate of a footprint that costs nothing: far above any memory's.
    const double noCost = 1e13;
    double warm = timeOf(runner, weightChain(warmCount, false, rows, side),
                         "weights-same")
                      .forward /
                  warmCount;
    // The one-weight chain is the baseline: at its footprint nothing is
    // cold, and below it the table's first point holds.
    c.coldOperand.push_back({weightBytes, noCost});
    for (int count :
         quick ? std::vector<int>{4} : std::vector<int>{2, 4, 8, 16, 32}) {
      double cold = timeOf(runner, weightChain(count, true, rows, side),
                           "weights-" + std::to_string(count))
                        .forward /
                    count;
      // A chain no slower than the warm one costs nothing either.
      double extra = cold - warm;
      double rate = extra > 1e-9 ? weightBytes / extra : noCost;
      c.coldOperand.push_back({count * weightBytes, rate});
      report(("parameters not in cache, " + std::to_string(count) + " MiB")
                 .c_str(),
             rate * 1e-9, "GB/s");
    }
  }

  // Adam steps: the fixed cost on 8 x 8 parameters, then the rate by size.
  c.optimizerSeconds = timeOf(runner, trainedMatmul(8, 8), "adam-8").optimizer;
  report("Adam step, fixed", c.optimizerSeconds * 1e6, "us");
  for (int64_t side : quick ? std::vector<int64_t>{128}
                            : std::vector<int64_t>{64, 256, 512, 1024}) {
    double bytes = 4.0 * side * side;
    double step = timeOf(runner, trainedMatmul(side, side),
                         "adam-" + std::to_string(side))
                      .optimizer;
    c.optimizer.push_back({bytes, bytes / positive(step - c.optimizerSeconds)});
    report(("Adam step, " + std::to_string(side) + "x" + std::to_string(side) +
            " parameters")
               .c_str(),
           c.optimizer.back().bytesPerSecond * 1e-9, "GB/s");
  }

  // Adam over parameters not in cache: models of 1 MiB tensors, by their
  // parameter bytes (with their gradients and moments, 4x that in memory).
  {
    const int64_t side = 512;
    const double tensorBytes = 4.0 * side * side;
    for (int count :
         quick ? std::vector<int>{4} : std::vector<int>{1, 4, 16, 32}) {
      double step = timeOf(runner, trainedWeightChain(count, side),
                           "adam-chain-" + std::to_string(count))
                        .optimizer;
      double bytes = count * tensorBytes;
      c.optimizerCold.push_back(
          {bytes, bytes / positive(step - count * c.optimizerSeconds)});
      report(("Adam step, " + std::to_string(count) + " MiB of 1 MiB tensors")
                 .c_str(),
             c.optimizerCold.back().bytesPerSecond * 1e-9, "GB/s");
    }
  }

  sim::DeviceSpec device = *sim::findDevice("cpu");
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
    for (auto [bytes, seconds] : figures->messages) {
      c.pointToPoint.push_back({bytes, seconds});
      report(("message of " + std::to_string(static_cast<int64_t>(bytes)) +
              " B, one way")
                 .c_str(),
             seconds * 1e6, "us");
    }
  }

  device.name = name;
  std::string model = cpuModel();
  device.description = "This machine as pipewave-calibrate measured it: " +
                       std::to_string(c.cores) + " cores" +
                       (model.empty() ? "" : " (" + model + ")");
  device.source = "pipewave-calibrate" + std::string(quick ? " --quick" : "") +
                  ": one-stage models of the CPU target timed with "
                  "pipewave-run (median of " +
                  std::to_string(steps - 1) + " steps)" +
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
  return 0;
}
