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
// Test hooks read by the stage functions (MPI tests): PW_TEST_DIE_RANK=R
// makes rank R _exit(1) in its (PW_TEST_DIE_AFTER+1)-th forward call;
// PW_TEST_HANG_RANK=R makes rank R sleep forever in its first forward call.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_UNITTESTS_RUNTIME_TESTMODEL_H
#define PIPEWAVE_UNITTESTS_RUNTIME_TESTMODEL_H

#include "pipewave-runtime/model.h"
#include "pipewave/Schedule/Program.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace pipewave::runtime::test {

/// How stages map to ranks.
enum class Placement {
  Pipeline,   ///< stage s on rank s (R == S)
  Looped,     ///< stage s on rank s % R
  Contiguous  ///< stage s on rank s / (S / R)
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
  /// Keep the whole training program (B, optimizer, gradient messages) and
  /// mark the model as training with a dummy backward. For planning tests
  /// only: the executor does not run training steps yet.
  bool training = false;
};

/// The program a config describes (verified with schedule::verify by the
/// caller if needed).
schedule::Program buildProgram(const ModelConfig &config);

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
  std::deque<std::vector<int32_t>> rankStages;
  std::deque<std::vector<pw_action>> rankActions;
  std::vector<pw_rank_program> ranks;
  std::vector<int32_t> groupRanks;

  pw_tensor_info tensor(const std::string &name, int32_t dtype,
                        std::vector<int64_t> shape);
};

/// Deterministic test data.
std::vector<float> makeInput(int batch, int features);
std::vector<float> makeParameter(int stage, int features);

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

} // namespace pipewave::runtime::test

#endif // PIPEWAVE_UNITTESTS_RUNTIME_TESTMODEL_H
