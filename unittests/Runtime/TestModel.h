//===- TestModel.h - A hand-written pw_model for runtime tests --*- C++ -*-===//
//
// Part of the pipewave project.
//
// ArithmeticModel is what pipewave-compile would emit for a tiny element-wise
// pipeline, written by hand:
//   data input  x: f32 [B, F];  parameters p0..p{S-1}: f32 [F]
//   stage s:    y = y_prev * (s + 2) + p_s   (y_prev = x for stage 0,
//                                             p_s broadcast over rows)
//               c = c_prev + 1                (i32 [mb]; 1 after stage 0)
//   last stage: also total = sum(y)           (f32 scalar)
//   outputs:    y (concat), count (= c, concat), total (sum over microbatches)
// Every stage result is packed into one message, so the messages carry two
// dtypes at aligned offsets. Action lists come from the schedule library (or
// a simple microbatch-major generator for several stages per rank).
//
// TrainModel is a hand-written training model (forward, backward, split
// backward_input/backward_weight with analytic gradients) for the training
// tests; see TrainConfig.
//
// Test hooks read by the stage functions (MPI tests): PW_TEST_DIE_RANK=R
// makes rank R _exit(1) in its (PW_TEST_DIE_AFTER+1)-th forward call;
// PW_TEST_HANG_RANK=R makes rank R sleep forever in its first forward call.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_UNITTESTS_RUNTIME_TESTMODEL_H
#define PIPEWAVE_UNITTESTS_RUNTIME_TESTMODEL_H

#include "pipewave-runtime/Optimizer.h"
#include "pipewave-runtime/model.h"
#include "pipewave/Schedule/Program.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace pipewave::runtime::test {

/// How stages map to ranks.
enum class Placement {
  Pipeline,  ///< stage s on rank s (R == S)
  Looped,    ///< stage s on rank s % R
  Contiguous ///< stage s on rank s / (S / R)
};

struct ModelConfig {
  int stages = 2;
  int ranks = 2;
  int microbatches = 4;
  int batch = 16;
  int features = 8;
  Placement placement = Placement::Pipeline;
  /// "gpipe" or "1f1b" (Pipeline placement only; 1f1b is the forward part of
  /// the 1F1B training program); other placements use a microbatch-major
  /// order: for each microbatch, the rank's stages in ascending order.
  std::string schedule = "gpipe";
};

/// The program a config describes (verified with schedule::verify by the
/// caller if needed).
schedule::Program buildProgram(const ModelConfig &config);

/// The pw_rank_program arrays of a schedule program, owned: every rank's
/// stages and actions, and the ranks of all-reduce groups.
struct RankTables {
  std::deque<std::vector<int32_t>> rankStages;
  std::deque<std::vector<pw_action>> rankActions;
  std::vector<pw_rank_program> ranks;
  std::vector<int32_t> groupRanks;

  /// Encodes `program`'s ranks and points `model`'s num_ranks, ranks and
  /// group_ranks at them.
  void encode(const schedule::Program &program, pw_model &model);
};

/// Owns every array of a pw_model.
class ArithmeticModel {
public:
  explicit ArithmeticModel(const ModelConfig &config);
  ArithmeticModel(const ArithmeticModel &) = delete;
  ArithmeticModel &operator=(const ArithmeticModel &) = delete;

  const pw_model *get() const { return &model; }
  pw_model *mutableModel() { return &model; }
  const ModelConfig &config() const { return cfg; }
  const schedule::Program &program() const { return prog; }

private:
  ModelConfig cfg;
  schedule::Program prog;
  pw_model model = {};
  std::deque<std::vector<int64_t>> shapes;
  std::deque<std::string> names;
  std::vector<pw_tensor_info> inputs, outputs;
  std::vector<int32_t> inputIsParam, outputCombine;
  std::deque<std::vector<pw_tensor_info>> stageArgs, stageResults;
  std::deque<std::vector<int32_t>> argSource, argIndex;
  std::vector<pw_stage> stages;
  RankTables rankTables;

  pw_tensor_info tensor(const std::string &name, int32_t dtype,
                        std::vector<int64_t> shape);
};

/// Deterministic test data.
std::vector<float> makeInput(int batch, int features);
std::vector<float> makeParameter(int stage, int features);
/// makeParameter of every stage, in the model's input order.
std::vector<std::vector<float>> makeParameters(const ModelConfig &config);

/// A model's input pointers: `data`, then each buffer of `params`.
std::vector<void *> inputPointers(std::vector<void *> data,
                                  std::vector<std::vector<float>> &params);

/// The model's outputs computed serially, with the same float operations in
/// the same order as the pipelined run.
struct Reference {
  std::vector<float> y;
  std::vector<int32_t> count;
  float total = 0;
};
Reference computeReference(const ModelConfig &config,
                           const std::vector<float> &x,
                           const std::vector<std::vector<float>> &params);

/// The training test model: L layers (`layers`) split evenly into S stages.
///   data inputs x, t: f32 [B, F] (global batch B); parameters w0, b0, w1,
///   b1, ..., w{L-1}, b{L-1}: f32 [F] (inputs x, t, then w_l, b_l per layer)
///   layer l:    y = tanh(h * w_l + b_l)   (element-wise; w_l, b_l broadcast
///                                          over rows)
///   stage s:    its layers in turn; also c = c_prev + 1 (i32 [rows], no
///               gradient; 1 after stage 0); stash: every layer's y
///   last stage: loss = sum((y - t)^2) * (1 / (B * F))   (result 0, f32
///               scalar: the mean over the global batch, so microbatch and
///               replica losses add up to it), then y and c
///   arguments:  stage 0 [x, w, b, w, b, ...]; stage s > 0 [w, h, c, b, w,
///               b, ...] (its first layer's w before the activation, so
///               grad_args mix parameters and activations); the last stage
///               also takes t at the end
///   backward:   per layer, last first: dz = dy * (1 - y^2), dw =
///               sum_rows(dz * h), db = sum_rows(dz), dy = dz * w; on the
///               last stage dy = d_loss * 2/(B*F) * (y - t) + d_y. Split:
///               backward_input -> (dh, dz per layer), backward_weight(
///               wstash = dz, h per layer) -> (dw, db per layer), each h
///               passed through (wstash_source: x or h, then the stash)
///               unless copyWStash, when backward_input returns the h's
///               after each dz.
struct TrainConfig {
  int layers = 4;
  int stages = 2;
  int microbatches = 4;
  /// Data-parallel replicas of the whole pipeline (ranks r + k * P for
  /// replica k, P pipeline ranks), with an all-reduce before each
  /// optimizer step.
  int replicas = 1;
  int batch = 16;
  int features = 8;
  /// "gpipe", "1f1b", "zb-h1" (I/W), "interleaved" (2 stages per rank),
  /// "hanayo" (one wave: 2 stages per rank), "zb-v" (I/W, 2 stages per rank
  /// in a V), or "local" (all stages on one rank: F of every stage per
  /// microbatch, then the backwards, then the optimizer steps).
  std::string schedule = "1f1b";
  /// Give the stages the split backward functions (backward_input and
  /// backward_weight); zb-h1 and zb-v always do. "local" then uses I and W.
  bool split = false;
  /// Leave the stages' B function out (only I/W).
  bool noWholeBackward = false;
  /// The split backward_input returns every weight stash value (no
  /// wstash_source) instead of passing the h's through.
  bool copyWStash = false;
  /// Give the stages accumulating variants of B and W (model.h) that add
  /// the weight gradients (not the biases') to their result buffers.
  bool accumulating = false;
  /// Give the model arm_updates (model.h): the whole backward then runs
  /// the armed SGD update of each weight whose gradient it writes, as a
  /// weight-gradient product does, leaving the gradient unwritten where
  /// the update's grad_dead allows.
  bool fusedUpdates = false;
};

/// Calls of the accumulating variants in this thread so far.
int accumulatingCalls();

/// TrainConfig::fusedUpdates (TrainModelFused.cpp): the model's
/// arm_updates, and what the whole backward does with weight `w`'s gradient
/// `dw` (count floats) and its result buffer `out`: writes it, and with an
/// update armed for both runs it with sgdElement after the backward's last
/// read of `w`, leaving `out` as it was where the update's grad_dead
/// allows.
void trainArmUpdates(pw_fused_update *updates, int32_t count);
void trainWeightResult(const float *dw, float *out, const float *w, int count);

/// The program a training config describes.
schedule::Program buildTrainProgram(const TrainConfig &config);

class TrainModel {
public:
  explicit TrainModel(const TrainConfig &config);
  TrainModel(const TrainModel &) = delete;
  TrainModel &operator=(const TrainModel &) = delete;

  const pw_model *get() const { return &model; }
  pw_model *mutableModel() { return &model; }
  const TrainConfig &config() const { return cfg; }
  const schedule::Program &program() const { return prog; }

private:
  TrainConfig cfg;
  schedule::Program prog;
  pw_model model = {};
  std::deque<std::vector<int64_t>> shapes;
  std::deque<std::string> names;
  std::vector<pw_tensor_info> inputs, outputs;
  std::vector<int32_t> inputIsParam, outputCombine;
  std::deque<std::vector<pw_tensor_info>> tensorLists;
  std::deque<std::vector<int32_t>> intLists;
  std::vector<pw_stage> stages;
  RankTables rankTables;

  pw_tensor_info tensor(const std::string &name, int32_t dtype,
                        std::vector<int64_t> shape);
};

/// Deterministic training data: `batches` global batches of x and t.
std::vector<float> makeTrainInput(int rows, int features);
std::vector<float> makeTrainTarget(int rows, int features);
/// Initial w_l and b_l.
std::vector<float> makeTrainWeight(int layer, int features);
std::vector<float> makeTrainBias(int layer, int features);
/// Every layer's initial weight and bias, in the model's input order.
std::vector<std::vector<float>> makeTrainParameters(const TrainConfig &config);

/// The loss and gradients of one global batch in double precision, and the
/// optimizer updates written from PyTorch's documented formulas, also in
/// double: the serial reference the pipelined runs are compared with.
struct TrainState {
  std::vector<std::vector<double>> w, b;
  /// Per layer. Optimizer state per parameter (w0, b0, w1, b1, ...):
  /// momentum buffer or exp_avg, and exp_avg_sq.
  std::vector<std::vector<double>> m, v;
  int64_t steps = 0;
};
struct TrainGradients {
  double loss = 0;
  std::vector<std::vector<double>> dw, db;
};
TrainGradients referenceGradients(const TrainConfig &config,
                                  const TrainState &state, const float *x,
                                  const float *t);
/// One update of `param` (size n) in double, PyTorch's formulas.
void referenceUpdate(const OptimizerConfig &config, int64_t step,
                     std::vector<double> &param,
                     const std::vector<double> &grad, std::vector<double> &m,
                     std::vector<double> &v);
/// `steps` full training steps from the initial state: losses per step
/// (before each update) and the final state. Step k reads global batch
/// (k - 1) % batches of xAll/tAll.
std::vector<double> referenceTraining(const TrainConfig &config,
                                      const OptimizerConfig &optimizer,
                                      const std::vector<float> &xAll,
                                      const std::vector<float> &tAll,
                                      int batches, int steps,
                                      TrainState &state);
TrainState initialTrainState(const TrainConfig &config);

} // namespace pipewave::runtime::test

#endif // PIPEWAVE_UNITTESTS_RUNTIME_TESTMODEL_H
