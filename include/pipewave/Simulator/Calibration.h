//===- Calibration.h - Measured cost terms of one machine -------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR/LLVM). The optional "calibration" object of a device
// file: what pipewave-calibrate measured on one machine through the code
// the CPU target generates. When a device has one, an op costs
//
//   matmul [B, M, K] x [B, K, N]:
//       opSeconds + flops / matmulFlopsPerSecond(M, N, K)
//                 x matmulLayoutFactor(M, N, K, transposed A, transposed B)
//   (with matmulBatchesInParallel, a GPU's: matmulFlopsPerSecond(B M, N, K),
//   the B products being one call that runs them side by side)
//   element-wise:
//       fusedOpSeconds + max(bytes / elementwise(bytes),
//                            flops / elementwiseFlopsPerSecond)
//   transcendental element-wise (exp, log, sin, cos, tanh, sigmoid, erf,
//   pow: library calls per element in the CPU code):
//       fusedOpSeconds + max(bytes / elementwise(bytes),
//                            flops / transcendentalFlopsPerSecond)
//   with the function's own rate from the transcendental table where it
//   has one: libm's functions differ more than their flop counts say
//   (on the machine of docs/bench.md expf took 2.9 ns, erff 8.5 and
//   tanhf 10.8 on values in [-2, 2], where 8 and 10 flops at exp's rate
//   gave erf and tanh 3.6)
//   reduction along the innermost axis:
//                    opSeconds + bytes / reduction(bytes)
//   reduction along an outer axis (adds whole rows, vectorises like an
//   element-wise op):
//                    opSeconds + bytes / outerReduction(bytes)
//   transpose moving the innermost axis, as a rows x cols matrix (cols the
//   input's innermost dimension, rows the other elements):
//                    opSeconds + bytes / transposeBytesPerSecond(rows, cols)
//   other data movement: opSeconds + bytes / movement(bytes)
//   a result copied out of the function (a stage function returning one of
//   its arguments, e.g. the weight-gradient stash of a split backward):
//                    opSeconds + bytes / copy(bytes)
//   other costed ops (convolutions, pooling, ...): opSeconds + the device's
//       roofline, max(flops / peak, bytes / memory bandwidth)
//   views and constants: 0
//
// A matmul whose operand is a transpose of its last two axes (dA = dY B^T,
// dB = A^T dY in every backward) reads it transposed: the CPU lowering
// folds the transpose into the BLAS call or the vectorised kernel, so the
// transpose costs nothing. Where the calibration has a rate table of its
// own for the layout (matmulNT for A B^T, matmulTN for A^T B, optional),
// the matmul is priced from that table alone:
//       opSeconds + flops / rate of the layout's table at (M, N, K)
// Otherwise it costs the "nn" price times the ratio that matmulKernels
// measured between its layout and "nn" for its shape class, each with the
// kernel chosen for it. One shape per class stands for every shape of
// the class, so that ratio misses how a layout's speed moves with the
// shape: OpenBLAS ran a 128x128x4 weight gradient (A^T B) 1.8x faster
// than the "small" class's ratio priced it, and an 8x128x32 A B^T 1.7x
// slower.
//
// Cold parameters (optional coldOperand table): a stage's parameters stay in
// cache from one action to the next only when its training footprint (the
// parameters, their gradients and the accumulated gradients: 3x the
// parameter bytes) is small. pipewave-calibrate times a chain of matmuls on
// distinct weights (the footprint: their bytes, 1 to 16 MiB) against the
// same chain on one weight; a matmul then adds coldBytes /
// coldOperand(footprint): its parameter operands' bytes over the rate
// measured at the stage's footprint.
//
// Optimizer state not in cache (optional optimizerCold table): Adam reads and
// writes each parameter, its gradient and two moments once a step, so when
// the parameters of all ranks sharing a node's last-level cache are large,
// each update streams from memory. pipewave-calibrate times the Adam step of
// a model of 1 MiB parameter tensors, by its parameter bytes (1 to 32 MiB);
// a tensor's update then runs at the slower of optimizer(its bytes) and
// optimizerCold(the parameter bytes on the node).
//
// Before a training step's updates a GPU's ranks each scan their stages'
// gradients for non-finite values (optional nonfiniteCheck table, the
// runtime's scan timed by bytes like accumulate) and then join one
// all-reduce; a CPU's updates check the gradients they read, and the ranks
// join the all-reduce after them (CostTable::agreementAfterUpdates).
//
// Every F, B, I or W action adds actionSeconds (the stage function's
// call and the runtime's work around it, the time between one action and
// the next included); a B or W action also adds, per
// trained parameter tensor of the stage, the runtime's accumulation of its
// gradient: accumulateSeconds + bytes / accumulate(bytes) (caches evicted
// first). With an accumulateWarm table (the same sums on buffers in cache)
// and a coldOperand table, the rate depends on the footprint as a matmul's
// parameter reads do: bytes / accumulateWarm(bytes) plus the share
// coldOperand(largest footprint) / coldOperand(footprint) of the difference
// to the evicted time, so a small stage accumulates at the warm rate and a
// large one at the evicted. A Copy (a result that is an argument, such as
// the parameters a zero-bubble I passes on to W) is priced the same way
// with copyWarm and copy. The runtime writes the step's first gradient of
// each parameter straight into its accumulator, so a step of M
// microbatches makes M - 1 accumulations of each. An optimizer
// step costs optimizerSeconds + parameter bytes / optimizer(parameter
// bytes); with version >= 2 that is summed over the stage's parameter
// tensors (the runtime updates one tensor at a time), and the action adds
// optimizerActionSeconds once (0 in files without it).
//
// opSeconds is the fixed cost of an op with a loop nest and a buffer of its
// own; fusedOpSeconds that of an element-wise op, which the compiler fuses
// with its element-wise neighbours into one loop nest. On a GPU such a
// fused group is one kernel launch: a GPU's calibration
// (pipewave-calibrate --target cuda) also has elementwiseKernelSeconds, the
// fixed cost of an element-wise op whose result some op other than an
// element-wise one uses (a matmul, a reduction, the function's return: the
// last op of a fused group, where its kernel ends); the others of the group
// cost fusedOpSeconds.
//
// With issueOverlapsWork (a GPU's calibration) every "fixed + work" above is
// max(fixed, work) instead: the host issues an op while the device runs
// the ones before it, so the slower of the two sets the pace.
//
// Terms a file lacks fall back to what files without them meant (older
// files load and price as before): fusedOpSeconds to opSeconds,
// transcendentalFlopsPerSecond to
// elementwiseFlopsPerSecond, outerReduction to reduction, transpose to
// movement; without copy and accumulate tables those costs are 0.
//
// elementwise, reduction, movement and optimizer are measured bandwidths by the
// bytes an op touches (caches make small ops faster): piecewise linear in (log
// bytes, log bandwidth) between the measured sizes, the end points' bandwidth
// beyond them.
//
// matmulFlopsPerSecond interpolates the measured table: with d_i the
// distance from (log2 M, log2 N, log2 K) to point i's, the rate of an exact
// match, else exp(sum w_i log r_i / sum w_i) with w_i = 1 / d_i^4 (inverse
// distance weighting of the log rates). transposeBytesPerSecond does the
// same in (log2 rows, log2 cols).
//
// All-reduce: the ring formula of Network.h on the measured all-reduce
// figures when present, else on the intraNode link (which holds the
// measured point-to-point latency and bandwidth).
//
// Point-to-point messages (optional pointToPoint table): the one-way time of
// a message of each measured size between two ranks of this machine. A
// message within the machine then takes messageSeconds(bytes), linear in
// bytes between the measured sizes, and beyond the largest its time plus the
// rest at the intraNode bandwidth. The table catches what one latency and
// one bandwidth cannot: MPI sends small messages eagerly and larger ones
// (above 4 KiB in Open MPI's shared-memory transport) after a rendezvous
// round trip, so a 5 KiB message can take several times a 4 KiB one.
// Each point may also hold the CPU time a message costs the two ranks
// besides waiting (LogP's overheads): send, the sender's posting of it, and
// recv, the receiver's posting of its receive and completing it once the
// message is there, delivered by MPI while the rank was inside it (in a
// barrier or another wait). A Send then takes sendOverheadSeconds(bytes) of
// its rank's time, and a Recv whose message arrived before it
// recvOverheadSeconds(bytes) (one that waits ends at the arrival: the
// one-way time includes both). A message that arrived while the receiver
// was outside MPI (computing) waits for the receiver's next call into MPI
// to be matched and copied in: with a deliver column its Recv takes
// deliverOverheadSeconds(bytes) instead (pipewave-calibrate: the wait for a
// message sent while the receiver ran no MPI call; 0.6 us against recv's
// 0.06 us for 2 KiB on the machine of docs/bench.md).
// The eager limit is read off the table (eagerLimitBytes: two measured
// sizes within 10% of each other whose times differ by 1.5x or more). A
// rendezvous message moves only once the receiver makes progress inside
// MPI, which it does at its communication actions, not while it computes:
// the simulator (Network.h, TransferCost::handshake) lets such a message
// complete no earlier than the first moment after the send that the
// receiver is inside one of its own Sends or Recvs, plus its one-way time
// less the smallest message's (the request to send has already arrived).
//
// Oversubscription: with more ranks than `cores`, the ranks share the
// cores, and the simulator stretches every duration by ranks / cores.
//
// matmulKernels (optional, not a cost term): both CPU matmul kernels timed
// per matmul class by pipewave-calibrate and the faster one, from which
// pipewave-compile's --matmul=auto chooses the kernel of each matmul
// (pipewave/Conversion/MatmulChoice.h, resolveMatmulChoice in
// pipewave/Pipelines/Pipelines.h).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SIMULATOR_CALIBRATION_H
#define PIPEWAVE_SIMULATOR_CALIBRATION_H

#include <algorithm>
#include <string>
#include <vector>

namespace pipewave::sim {

/// The classes of ops the calibrated cost distinguishes.
enum class OpClass {
  Free,
  Matmul,
  Elementwise,
  Transcendental,
  Reduction,
  OuterReduction,
  Transpose,
  Movement,
  Copy,
  Other
};

/// The work of one op, as the calibrated cost needs it.
struct OpWork {
  OpClass kind = OpClass::Other;
  double flops = 0;
  double bytes = 0;
  /// Matmul: the per-batch problem M x K times K x N. Transpose: m rows
  /// of n (the input's innermost dimension) elements.
  double m = 0, n = 0, k = 0;
  /// True for work that does not scale with the samples of a step (a
  /// transpose of a weight in a backward priced before pipe-autodiff).
  bool fixedSize = false;
  /// Transpose: the CPU lowering folds it into the matmul that reads it
  /// (free on a calibrated device, which prices that matmul's layout).
  bool folded = false;
  /// Matmul: operands read transposed (a transpose of the last two axes
  /// that the CPU lowering folds into the kernel instead of copying).
  bool transposedA = false, transposedB = false;
  /// Matmul: bytes of its operands that are the stage's parameters (read
  /// from memory when the stage's footprint does not stay in cache).
  double coldBytes = 0;
  /// Element-wise: every user of its result is element-wise too (through
  /// reshapes), so the lowering fuses it into them: no kernel (loop nest)
  /// of its own.
  bool fusedIntoUsers = false;
  /// Transcendental: the function it evaluates per element, the TOSA op's
  /// name ("exp", "erf", "tanh", ...; empty: not known).
  std::string function;
};

/// The measured rate of one transcendental function, in the cost model's
/// flops (8 an element for exp, log, sin and cos; 10 for tanh, sigmoid and
/// erf; 16 for pow).
struct TranscendentalPoint {
  std::string function;
  double flopsPerSecond = 0;
};

/// One measured matmul: its shape and its rate.
struct MatmulPoint {
  double m = 0, n = 0, k = 0;
  double flopsPerSecond = 0;
};

/// One measured transpose of a rows x cols matrix.
struct TransposePoint {
  double rows = 0, cols = 0;
  double bytesPerSecond = 0;
};

/// matmulKernels: the vectorised kernel and OpenBLAS timed on one matmul
/// class's representative shape (M x K times K x N), and the faster.
struct MatmulKernelPoint {
  /// The class, e.g. "nt-skinny-m" (MatmulChoice.h; not checked here).
  std::string matmulClass;
  double m = 0, n = 0, k = 0;
  double vectorSeconds = 0, blasSeconds = 0;
  /// "vector" or "blas".
  std::string kernel;
};

/// A bandwidth measured on ops touching `bytes` bytes.
struct BandwidthPoint {
  double bytes = 0;
  double bytesPerSecond = 0;
};

/// The bandwidth of `table` (sorted by bytes) at `bytes` (see the file
/// comment); 0 for an empty table.
double bandwidthAt(const std::vector<BandwidthPoint> &table, double bytes);

/// One measured point-to-point message: its size and one-way seconds.
struct MessagePoint {
  double bytes = 0;
  double seconds = 0;
  /// CPU seconds of the message besides waiting: the sender's posting of
  /// it, the receiver's posting and completing of its receive once it is
  /// there (0: not measured).
  double sendSeconds = 0;
  double recvSeconds = 0;
  /// The receiver's wait for a message that arrived while it computed,
  /// outside MPI: MPI delivers it (matches it to its receive and copies it
  /// in) only then (0: not measured).
  double deliverSeconds = 0;
};

/// Measured cost terms of one machine (see the file comment).
struct Calibration {
  /// The format's version: 1 (the first files), 2 (optimizer per tensor).
  int version = 1;
  /// Cores the ranks share; 0 when unknown.
  int cores = 0;
  std::vector<MatmulPoint> matmul;
  /// Rates of A B^T and A^T B products (M x N results, K the contracted
  /// axis), measured in that layout; empty: not measured (the matmul table
  /// times matmulLayoutFactor).
  std::vector<MatmulPoint> matmulNT, matmulTN;
  std::vector<BandwidthPoint> elementwise, reduction, movement;
  double elementwiseFlopsPerSecond = 0;
  /// Optional terms (see the file comment for their fall-backs).
  double transcendentalFlopsPerSecond = 0;
  /// Rates of single transcendental functions (optional; a function not
  /// in it runs at transcendentalFlopsPerSecond, exp's).
  std::vector<TranscendentalPoint> transcendental;
  /// Fixed cost of an element-wise op; negative: opSeconds.
  double fusedOpSeconds = -1;
  /// Fixed cost of an element-wise op that the lowering does not fuse into
  /// its users (a kernel of its own on a GPU); negative: fusedOpSeconds,
  /// fused or not (the CPU target's calibrations).
  double elementwiseKernelSeconds = -1;
  /// A batched matmul is one call whose products run side by side (a GPU:
  /// one cuBLAS strided-batched call) and is priced at the rate of one
  /// product with the batches' rows; false: the products run one after
  /// another at the rate of one (the CPU target's loops).
  bool matmulBatchesInParallel = false;
  /// The host issues an op while the device runs the ones before it (a
  /// GPU's stream): an op costs the larger of its fixed (issue) cost and
  /// its work, not their sum; false: their sum (the CPU runs both).
  bool issueOverlapsWork = false;
  std::vector<BandwidthPoint> outerReduction, copy, accumulate;
  /// Accumulation and copies on buffers in cache (empty: not measured).
  std::vector<BandwidthPoint> accumulateWarm, copyWarm;
  std::vector<TransposePoint> transpose;
  double accumulateSeconds = 0;
  /// Fixed cost of one costed op, and of one F/B/I/W action.
  double opSeconds = 0;
  double actionSeconds = 0;
  /// Optimizer step: fixed cost per tensor, and parameter bytes per second
  /// by the parameter bytes.
  double optimizerSeconds = 0;
  /// Fixed cost of an optimizer action, whatever its tensors (a traced
  /// action on a GPU waits for the device once); negative: not measured
  /// (0).
  double optimizerActionSeconds = -1;
  std::vector<BandwidthPoint> optimizer;
  /// Adam's parameter bytes per second by the parameter bytes of a node
  /// (empty: not measured).
  std::vector<BandwidthPoint> optimizerCold;
  /// Ring all-reduce link figures between ranks of one machine (the
  /// formula of Network.h); 0 bandwidth: the device's intraNode link.
  double allReduceBytesPerSecond = 0;
  double allReduceLatencySeconds = 0;
  /// The matmul kernel measured faster per class (empty: not measured).
  std::vector<MatmulKernelPoint> matmulKernels;
  /// One-way message times between two ranks by size (sizes increasing;
  /// empty: not measured).
  std::vector<MessagePoint> pointToPoint;
  /// The runtime's scan of gradients for non-finite values before a
  /// step's updates (--on-nonfinite), bytes per second by the bytes
  /// scanned (empty: not measured, no cost).
  std::vector<BandwidthPoint> nonfiniteCheck;
  /// The rate at which a matmul reads parameter bytes that are not in
  /// cache, by the footprint of the stage whose parameters they are
  /// (footprints increasing; empty: not measured, no cost).
  std::vector<BandwidthPoint> coldOperand;

  /// One-way seconds of a `bytes` message between two ranks of this
  /// machine from the pointToPoint table (see the file comment), with
  /// `bytesPerSecond` beyond its largest size; negative without a table.
  double messageSeconds(double bytes, double bytesPerSecond) const;

  /// The CPU seconds a `bytes` message between two ranks of this machine
  /// costs its sender and its receiver besides waiting, from the
  /// pointToPoint table's send and recv (linear in bytes between the
  /// measured sizes, the end points' beyond them); 0 without a table.
  double sendOverheadSeconds(double bytes) const;
  double recvOverheadSeconds(double bytes) const;
  /// The receiver's seconds completing a message of `bytes` that arrived
  /// while it was outside MPI (the deliver column; recvOverheadSeconds in
  /// tables without it).
  double deliverOverheadSeconds(double bytes) const;

  /// The largest size the pointToPoint table shows sent eagerly: the
  /// smaller of the first two measured sizes within 10% of each other whose
  /// times differ by 1.5x or more (see the file comment); 0 without such a
  /// pair or without a table.
  double eagerLimitBytes() const;

  /// Interpolated matmul rate of an M x K times K x N problem (0 when the
  /// table is empty).
  double matmulFlopsPerSecond(double m, double n, double k) const;

  /// The measured rate table of a layout (matmulNT, matmulTN), or null
  /// when the layout has none (NN, TT, or not measured).
  const std::vector<MatmulPoint> *layoutTable(bool transposedA,
                                              bool transposedB) const;

  /// How much longer a matmul of this shape takes with its A and/or B
  /// operand read transposed than with neither, with the kernel the
  /// matmulKernels table chose for each (1 without the table).
  double matmulLayoutFactor(double m, double n, double k, bool transposedA,
                            bool transposedB) const;

  /// Seconds the runtime's non-finite scan takes over `gradientBytes` (0
  /// without a nonfiniteCheck table).
  double nonfiniteCheckSecondsOf(double gradientBytes) const;

  /// Seconds a matmul spends reading `coldBytes` of parameters of a stage
  /// whose footprint is `footprintBytes` (0 without a coldOperand table).
  double coldSecondsOf(double coldBytes, double footprintBytes) const;

  /// Seconds of `op`; `peakFlops` and `memoryBytesPerSecond` are the
  /// device's roofline figures for OpClass::Other.
  double opSecondsOf(const OpWork &op, double peakFlops,
                     double memoryBytesPerSecond) const;

  /// An op's cost from its fixed part and its work (issueOverlapsWork).
  double issued(double fixed, double work) const {
    return issueOverlapsWork ? std::max(fixed, work) : fixed + work;
  }

  /// The fixed cost of an element-wise op.
  double elementwiseOpSeconds() const {
    return fusedOpSeconds >= 0 ? fusedOpSeconds : opSeconds;
  }

  /// The fixed cost of element-wise `op`: elementwiseKernelSeconds when it
  /// is measured and `op` is not fused into its users, else
  /// elementwiseOpSeconds().
  double elementwiseFixedSeconds(const OpWork &op) const {
    return elementwiseKernelSeconds >= 0 && !op.fusedIntoUsers
               ? elementwiseKernelSeconds
               : elementwiseOpSeconds();
  }

  /// Interpolated bandwidth of a rows x cols transpose (0 when the table
  /// is empty).
  double transposeBytesPerSecond(double rows, double cols) const;

  /// Seconds of an optimizer step over `parameterBytes`, on a node whose
  /// ranks hold `nodeParameterBytes` (optimizerCold; 0: this step's alone).
  double optimizerStepSeconds(double parameterBytes,
                              double nodeParameterBytes = 0) const;

  /// Seconds of a stage's optimizer step over parameter tensors of
  /// `tensorBytes` (per tensor with version >= 2, else as one), on a node
  /// whose ranks hold `nodeParameterBytes`.
  double optimizerStepSeconds(const std::vector<double> &tensorBytes,
                              double nodeParameterBytes = 0) const;

  /// How cold a stage's buffers are at a training footprint of
  /// `footprintBytes`, 0 (in cache) to 1 (evicted): coldOperand at the
  /// largest footprint measured over coldOperand at this one; 1 when the
  /// footprint (negative) or the table is not known.
  double coldnessAt(double footprintBytes) const;

  /// Seconds of a Copy of `bytes` (a function result that is one of its
  /// arguments) in a stage of training footprint `footprintBytes`: the
  /// copyWarm time plus coldnessAt() of the difference to the evicted
  /// `copy` time, or the evicted time without a copyWarm table.
  double copySecondsOf(double bytes, double footprintBytes) const;

  /// Seconds the runtime takes to accumulate the gradients of parameter
  /// tensors of `tensorBytes` after a B or W, for a stage whose training
  /// footprint is `footprintBytes` (negative: not known, the evicted rate);
  /// 0 without an accumulate table.
  double accumulateSecondsOf(const std::vector<double> &tensorBytes,
                             double footprintBytes = -1) const;
};

} // namespace pipewave::sim

#endif // PIPEWAVE_SIMULATOR_CALIBRATION_H
