//===- Compute.cpp - One pass over the compute benchmarks -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Compute.h"

#include "HostLoops.h"
#include "Models.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pipewave::calibrate {

namespace {

/// Times `model` (the median over the passes so far), dying with the
/// failing command's output.
Timing timeOf(Runner &runner, const Model &model, const std::string &name,
              const std::string &poolAs = "") {
  std::string error;
  std::optional<Timing> timing = runner.pooled(model, name, error, poolAs);
  if (!timing) {
    std::fprintf(stderr, "pipewave-calibrate: error: %s\n", error.c_str());
    std::exit(1);
  }
  return *timing;
}

double positive(double seconds) { return std::max(seconds, 1e-9); }

/// The runtime's gradient accumulation (after every B and W, per parameter
/// tensor), contiguous copies and the non-finite scan, timed in this process
/// (the CPU target's device).
void measureHostLoops(SamplePool &loops, bool quick,
                      const std::vector<int64_t> &sides, sim::Calibration &c,
                      const Report &report) {
  auto reportRate = [&](const std::string &what, const auto &table) {
    report(what.c_str(), table.back().bytesPerSecond * 1e-9, "GB/s");
  };
  int loopReps = quick ? 10 : 40;
  c.accumulateSeconds =
      loops.add("accumulate-fixed", accumulateSeconds(8, loopReps, false));
  report("gradient accumulation, fixed", c.accumulateSeconds * 1e6, "us");
  for (int64_t side : sides) {
    size_t count = static_cast<size_t>(side * side);
    double bytes = 4.0 * static_cast<double>(count);
    std::string key = std::to_string(side);
    double acc =
        loops.add("accumulate-" + key, accumulateSeconds(count, loopReps));
    c.accumulate.push_back(
        {bytes, bytes / positive(acc - c.accumulateSeconds)});
    double warm = loops.add("accumulate-warm-" + key,
                            accumulateSeconds(count, loopReps, false));
    double copy = loops.add("copy-" + key, copySeconds(count, loopReps));
    double copyWarm =
        loops.add("copy-warm-" + key, copySeconds(count, loopReps, false));
    double check =
        loops.add("check-" + key, nonfiniteCheckSeconds(count, loopReps));
    c.accumulateWarm.push_back(
        {bytes, bytes / positive(warm - c.accumulateSeconds)});
    c.copy.push_back({bytes, bytes / positive(copy)});
    c.copyWarm.push_back({bytes, bytes / positive(copyWarm)});
    c.nonfiniteCheck.push_back({bytes, bytes / positive(check)});
    std::string size = key + "x" + key;
    reportRate("accumulate " + size, c.accumulate);
    reportRate("accumulate in cache " + size, c.accumulateWarm);
    reportRate("copy " + size, c.copy);
    reportRate("copy in cache " + size, c.copyWarm);
    reportRate("non-finite check " + size, c.nonfiniteCheck);
  }
}

} // namespace

void measureCompute(Runner &runner, SamplePool &loops, bool quick,
                    sim::Calibration &c, const Report &report) {
  // On a GPU (the CUDA target) the runtime's accumulation, copies and
  // optimizer are device kernels, not loops in this process, and the
  // parameters of these models fit its cache.
  bool gpu = runner.isCuda();
  // The last point of a bandwidth table, in GB/s.
  auto reportRate = [&](const std::string &what, const auto &table) {
    report(what.c_str(), table.back().bytesPerSecond * 1e-9, "GB/s");
  };
  // Fixed costs: one tiny op, and the slope of a chain of them.
  const int chain = 32;
  double call =
      timeOf(runner, elementwiseChain("tosa.add", 1, 8, 1), "call").forward;
  double chained =
      timeOf(runner, elementwiseChain("tosa.add", 1, 8, chain), "ops").forward;
  c.fusedOpSeconds = std::max(0.0, (chained - call) / (chain - 1));
  double matmul1 = timeOf(runner, matmulChain(1), "mm-chain-1").forward;
  double matmuls = timeOf(runner, matmulChain(chain), "mm-chain").forward;
  c.opSeconds = std::max(0.0, (matmuls - matmul1) / (chain - 1));
  if (gpu) {
    // An element-wise op that nothing fuses with is a kernel launch of its
    // own: the slope of the same chain with a tosa.abs before each matmul,
    // less the matmul's.
    double ew1 = timeOf(runner, matmulChain(1, true), "mm-ew-chain-1").forward;
    double ews =
        timeOf(runner, matmulChain(chain, true), "mm-ew-chain").forward;
    c.elementwiseKernelSeconds =
        std::max(0.0, (ews - ew1) / (chain - 1) - c.opSeconds);
  }
  // The call inside an action's slice, and the runtime's work between one
  // action and the next slice (the next action's dispatch, its slots and
  // events): the mean gap after an action in a one-rank training run of
  // 4 microbatches, on a stage of 4 parameter tensors (the work grows with
  // a stage's tensors: about 0.25 us with one, 0.7 with 16 on the machine
  // this was written on). An action costs both. The tiny add is the
  // function's only op: on a GPU a kernel of its own.
  double loneAdd = gpu ? c.elementwiseKernelSeconds : c.fusedOpSeconds;
  double inSlice = std::max(0.0, call - loneAdd);
  Model gaps = trainedWeightChain(4, 64);
  gaps.compileFlags = " --microbatches 4";
  double between = timeOf(runner, gaps, "action-gaps").between;
  c.actionSeconds = inSlice + between;
  report("per action", c.actionSeconds * 1e6, "us");
  report("  of it between actions", between * 1e6, "us");
  report("per op", c.opSeconds * 1e6, "us");
  report("per fused element-wise op", c.fusedOpSeconds * 1e6, "us");
  if (gpu)
    report("per element-wise kernel", c.elementwiseKernelSeconds * 1e6, "us");

  // Bandwidths by size, from in-cache to a few MiB; one op each (the
  // compiler fuses chains of element-wise ops).
  // Fixed parts of a one-op model: the action and the op's own (a lone
  // element-wise op is a kernel of its own on a GPU: the cost model
  // charges it elementwiseKernelSeconds, so that is not bandwidth).
  double fixed = inSlice + c.opSeconds;
  double fixedFused = inSlice + loneAdd;
  // One cuBLAS call runs a batched matmul's products side by side, and the
  // host issues an op while the GPU runs the ones before it.
  c.matmulBatchesInParallel = gpu;
  c.issueOverlapsWork = gpu;
  std::vector<int64_t> sides =
      quick ? std::vector<int64_t>{64, 512}
      : gpu ? std::vector<int64_t>{64, 256, 1024, 2048, 4096}
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
    reportRate("add " + size, c.elementwise);
    reportRate("reduce_sum " + size, c.reduction);
    reportRate("reduce_sum axis 0 " + size, c.outerReduction);
    reportRate("transpose " + size, c.movement);
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
  // The functions whose libm cost differs most from exp's in the ratio of
  // their flop counts (the cost model's: 10 flops an element each), on
  // the same values in [-1, 1]. The CPU target only: a GPU's are
  // intrinsics at exp's rate.
  c.transcendental.clear();
  if (!gpu)
    for (const char *function : {"erf", "tanh", "sigmoid"}) {
      double seconds = timeOf(runner,
                              elementwiseChain(std::string("tosa.") + function,
                                               expSide, expSide, 1),
                              function)
                           .forward;
      c.transcendental.push_back(
          {function, 10 * expElements / positive(seconds - fixedFused)});
      report((std::string("transcendental (") + function + ", 10 flops each)")
                 .c_str(),
             c.transcendental.back().flopsPerSecond * 1e-9, "GFLOP/s");
    }

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
      reportRate("transpose " + size + " (by shape)", c.transpose);
    }

  if (gpu) {
    // The CUDA device accumulates a gradient with one element-wise kernel
    // (reads two tensors, writes one) and copies with the copy engine (reads
    // and writes one): priced as the element-wise add of the same bytes,
    // each a kernel call of its own.
    c.accumulateSeconds = c.opSeconds;
    for (const sim::BandwidthPoint &point : c.elementwise) {
      double bytes = point.bytes / 3;
      c.accumulate.push_back({bytes, point.bytesPerSecond / 3});
      c.copy.push_back({bytes, point.bytesPerSecond / 2});
    }
    c.accumulateWarm = c.accumulate;
    c.copyWarm = c.copy;
    reportRate("accumulate (from the add)", c.accumulate);
  } else {
    measureHostLoops(loops, quick, sides, c, report);
  }

  // Matmul rates: square, small-M (skinny activations), narrow N or K, and
  // a weight gradient's shape (N = 512 features, K = 64 rows of a
  // microbatch, M the other layer's features).
  std::vector<int64_t> ms = quick ? std::vector<int64_t>{4, 64}
                            : gpu
                                ? std::vector<int64_t>{1, 4, 16, 64, 256, 1024}
                                : std::vector<int64_t>{1, 4, 16, 64, 256};
  std::vector<std::pair<int64_t, int64_t>> nks =
      quick ? std::vector<std::pair<int64_t, int64_t>>{{64, 64}}
            : std::vector<std::pair<int64_t, int64_t>>{{32, 32},   {128, 128},
                                                       {512, 512}, {8, 512},
                                                       {512, 8},   {512, 64}};
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

  // The transposed layouts at the shapes they take in training, each timed
  // in its own layout (the folded transpose): A B^T for M rows (an input
  // gradient dY W^T, or a forward x W^T of [out, in] weights), and A^T B
  // for a weight gradient (M and N features, K the rows of a microbatch).
  // The cost model prices those layouts from these tables alone.
  if (!gpu) {
    auto timeLayout = [&](int64_t m, int64_t n, int64_t k, bool transposeA,
                          std::vector<sim::MatmulPoint> &table) {
      std::string name = std::string(transposeA ? "tn" : "nt") +
                         " M=" + std::to_string(m) + " N=" + std::to_string(n) +
                         " K=" + std::to_string(k);
      std::string label = std::string(transposeA ? "mm-tn-" : "mm-nt-") +
                          std::to_string(m) + "x" + std::to_string(k) + "x" +
                          std::to_string(n);
      double t =
          timeOf(runner, layoutMatmul(m, n, k, transposeA, !transposeA), label)
              .forward;
      table.push_back({static_cast<double>(m), static_cast<double>(n),
                       static_cast<double>(k),
                       2.0 * m * n * k / positive(t - fixed)});
      report(("matmul " + name).c_str(), table.back().flopsPerSecond * 1e-9,
             "GFLOP/s");
    };
    std::vector<std::pair<int64_t, int64_t>> ntShapes =
        quick ? std::vector<std::pair<int64_t, int64_t>>{{64, 64}}
              : std::vector<std::pair<int64_t, int64_t>>{
                    {32, 32}, {128, 128}, {512, 512}, {128, 32}, {32, 128}};
    for (auto [n, k] : ntShapes)
      for (int64_t m : ms)
        timeLayout(m, n, k, /*transposeA=*/false, c.matmulNT);
    std::vector<int64_t> features =
        quick ? std::vector<int64_t>{64} : std::vector<int64_t>{32, 128, 512};
    std::vector<int64_t> rows =
        quick ? std::vector<int64_t>{4} : std::vector<int64_t>{4, 16, 64, 256};
    for (int64_t side : features)
      for (int64_t k : rows)
        timeLayout(side, side, k, /*transposeA=*/true, c.matmulTN);
  }

  // Parameters that do not stay in cache: chains of matmuls of a [64, 512]
  // activation by distinct 512 x 512 weights (1 MiB each) against the same
  // chain on one weight; the extra time per weight byte, by the chain's
  // footprint. (Not on a GPU: 32 MiB fit its cache.)
  if (!gpu) {
    const int64_t rows = 64, side = 512;
    const double weightBytes = 4.0 * side * side;
    const int warmCount = 8;
    // The rate of a footprint that costs nothing: far above any memory's.
    const double noCost = 1e13;
    // The one-weight chain is the baseline: at its footprint nothing is
    // cold, and below it the table's first point holds.
    c.coldOperand.push_back({weightBytes, noCost});
    for (int count :
         quick ? std::vector<int>{4} : std::vector<int>{2, 4, 8, 16, 32}) {
      // The baseline runs right before each chain (one binary, pooled per
      // chain across the passes): the extra time is a small difference of
      // two long times, and the machine's speed moves between runs further
      // apart.
      std::string size = std::to_string(count);
      double warm = timeOf(runner, weightChain(warmCount, false, rows, side),
                           "weights-same", "weights-same-before-" + size)
                        .forward /
                    warmCount;
      double cold = timeOf(runner, weightChain(count, true, rows, side),
                           "weights-" + size)
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

  // Adam steps: the fixed costs of an action and of each tensor it updates
  // (the slope from 1 to 8 tensors of 8 x 8), then the rate by size.
  double adam1 =
      timeOf(runner, trainedWeightChain(1, 8), "adam-8x8-1").optimizer;
  double adam8 =
      timeOf(runner, trainedWeightChain(8, 8), "adam-8x8-8").optimizer;
  c.optimizerSeconds = std::max(0.0, (adam8 - adam1) / 7);
  c.optimizerActionSeconds = std::max(0.0, adam1 - c.optimizerSeconds);
  report("Adam step, fixed per action", c.optimizerActionSeconds * 1e6, "us");
  report("Adam step, fixed per tensor", c.optimizerSeconds * 1e6, "us");
  double adamFixed = c.optimizerActionSeconds + c.optimizerSeconds;
  for (int64_t side : quick ? std::vector<int64_t>{128}
                            : std::vector<int64_t>{64, 256, 512, 1024}) {
    double bytes = 4.0 * side * side;
    double step = timeOf(runner, trainedMatmul(side, side),
                         "adam-" + std::to_string(side))
                      .optimizer;
    c.optimizer.push_back({bytes, bytes / positive(step - adamFixed)});
    report(("Adam step, " + std::to_string(side) + "x" + std::to_string(side) +
            " parameters")
               .c_str(),
           c.optimizer.back().bytesPerSecond * 1e-9, "GB/s");
  }

  // Adam over parameters not in cache: models of 1 MiB tensors, by their
  // parameter bytes (with their gradients and moments, 4x that in memory).
  if (!gpu) {
    const int64_t side = 512;
    const double tensorBytes = 4.0 * side * side;
    for (int count :
         quick ? std::vector<int>{4} : std::vector<int>{1, 4, 16, 32}) {
      double step = timeOf(runner, trainedWeightChain(count, side),
                           "adam-chain-" + std::to_string(count))
                        .optimizer;
      double bytes = count * tensorBytes;
      c.optimizerCold.push_back(
          {bytes, bytes / positive(step - c.optimizerActionSeconds -
                                   count * c.optimizerSeconds)});
      report(("Adam step, " + std::to_string(count) + " MiB of 1 MiB tensors")
                 .c_str(),
             c.optimizerCold.back().bytesPerSecond * 1e-9, "GB/s");
    }
  }
}

} // namespace pipewave::calibrate
