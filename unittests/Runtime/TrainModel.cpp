//===- TrainModel.cpp - A hand-written training pw_model for tests --------===//
//
// Part of the pipewave project.
//
// See TrainConfig in TestModel.h. The stage functions are written by hand
// with analytic gradients, as pipe-autodiff would emit them: forward returns
// its results then the stash, backward takes (args, stash, d_res) and
// returns the gradients of grad_args, backward_input/backward_weight split
// that into input gradients (plus the weight stash) and parameter gradients.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include "pipewave/Schedule/Generate.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pipewave::runtime::test {

namespace {

// Shapes of the training model in this process (stage functions take no
// context).
int tStages = 1;
int tLayersPerStage = 1;
int tRows = 1;
int tFeatures = 1;
/// backward_input returns the h_j of the weight stash too (TrainConfig::
/// copyWStash) instead of passing them through.
bool tCopyWStash = false;
/// 1 / (global batch * features): the loss is the mean over the global
/// batch, so the microbatch losses add up to it.
float tScale = 1;

constexpr int kMaxStages = 8;

/// Argument indices of stage s (-1: absent).
struct Layout {
  int x = -1, t = -1, h = -1, c = -1;
  std::vector<int> w, b;
  int numArgs = 0;
};

Layout layoutOf(int s, int stages, int layersPerStage) {
  bool last = s == stages - 1;
  Layout l;
  int next = 0;
  if (s == 0) {
    l.x = next++;
  } else {
    l.w.push_back(next++);
    l.h = next++;
    l.c = next++;
    l.b.push_back(next++);
  }
  while (static_cast<int>(l.w.size()) < layersPerStage) {
    l.w.push_back(next++);
    l.b.push_back(next++);
  }
  if (last)
    l.t = next++;
  l.numArgs = next;
  return l;
}

Layout layoutOf(int s) { return layoutOf(s, tStages, tLayersPerStage); }

int numResults(int s) { return s == tStages - 1 ? 3 : 2; }

const float *arg(void *const *args, int index) {
  return static_cast<const float *>(args[index]);
}

void trainForward(int s, void *const *args, void *const *results) {
  Layout l = layoutOf(s);
  bool last = s == tStages - 1;
  const int n = tRows * tFeatures, F = tFeatures;
  const float *in = arg(args, s == 0 ? l.x : l.h);
  for (int j = 0; j < tLayersPerStage; ++j) {
    const float *w = arg(args, l.w[j]);
    const float *b = arg(args, l.b[j]);
    float *y = static_cast<float *>(results[numResults(s) + j]);
    for (int i = 0; i < n; ++i)
      y[i] = std::tanh(in[i] * w[i % F] + b[i % F]);
    in = y;
  }
  float *y = static_cast<float *>(results[last ? 1 : 0]);
  for (int i = 0; i < n; ++i)
    y[i] = in[i];
  const int32_t *cin =
      s == 0 ? nullptr : static_cast<const int32_t *>(args[l.c]);
  int32_t *c = static_cast<int32_t *>(results[last ? 2 : 1]);
  for (int r = 0; r < tRows; ++r)
    c[r] = (cin ? cin[r] : 0) + 1;
  if (last) {
    const float *t = arg(args, l.t);
    float sum = 0;
    for (int i = 0; i < n; ++i) {
      float d = y[i] - t[i];
      sum += d * d;
    }
    *static_cast<float *>(results[0]) = sum * tScale;
  }
}

/// Walks the stage's layers backwards from (args..., stash..., d_res...):
/// calls visit(j, dz_j, h_j) per layer j (last first) and leaves dy = the
/// gradient of the stage input in `dy`.
template <typename Visit>
void backwardLayers(int s, void *const *args, std::vector<float> &dy,
                    std::vector<float> &dz, Visit visit) {
  Layout l = layoutOf(s);
  bool last = s == tStages - 1;
  const int n = tRows * tFeatures, F = tFeatures, K = tLayersPerStage;
  auto stash = [&](int j) { return arg(args, l.numArgs + j); };
  const float *dres = arg(args, l.numArgs + K);
  dy.resize(n);
  dz.resize(n);
  if (last) {
    // d_res: d_loss (scalar), d_y (the y output's seed).
    const float g = dres[0] * (2.0f * tScale);
    const float *dyOut = arg(args, l.numArgs + K + 1);
    const float *t = arg(args, l.t);
    const float *y = stash(K - 1);
    for (int i = 0; i < n; ++i)
      dy[i] = g * (y[i] - t[i]) + dyOut[i];
  } else {
    for (int i = 0; i < n; ++i)
      dy[i] = dres[i];
  }
  for (int j = K - 1; j >= 0; --j) {
    const float *y = stash(j);
    const float *h = j > 0 ? stash(j - 1) : arg(args, s == 0 ? l.x : l.h);
    const float *w = arg(args, l.w[j]);
    for (int i = 0; i < n; ++i)
      dz[i] = dy[i] * (1.0f - y[i] * y[i]);
    visit(j, dz.data(), h);
    for (int i = 0; i < n; ++i)
      dy[i] = dz[i] * w[i % F];
  }
}

void weightGradients(const float *dz, const float *h, float *dw, float *db) {
  const int F = tFeatures;
  for (int f = 0; f < F; ++f) {
    float sw = 0, sb = 0;
    for (int r = 0; r < tRows; ++r) {
      sw += dz[r * F + f] * h[r * F + f];
      sb += dz[r * F + f];
    }
    dw[f] = sw;
    db[f] = sb;
  }
}

// Scratch of the backward functions; one per thread, as the loopback
// backend runs several ranks in one process.
thread_local std::vector<float> gDy, gDz;
thread_local std::vector<std::vector<float>> gDw;

/// backward(args..., stash..., d_res...) -> grad_args in ascending order:
/// stage 0 (dw0, db0, dw1, db1, ...), stage s > 0 (dw0, dh, db0, dw1, ...).
void trainBackward(int s, void *const *args, void *const *results) {
  int offset = s == 0 ? 0 : 1; // dh sits between dw0 and db0.
  backwardLayers(s, args, gDy, gDz,
                 [&](int j, const float *dz, const float *h) {
                   float *db = static_cast<float *>(
                       results[j == 0 ? 1 + offset : 2 * j + 1 + offset]);
                   gDw.resize(tLayersPerStage);
                   gDw[j].resize(tFeatures);
                   weightGradients(dz, h, gDw[j].data(), db);
                 });
  // The weights' results after their last read (dy = dz * w), where
  // pipe-fuse-updates puts a product that updates its parameter.
  for (int j = 0; j < tLayersPerStage; ++j)
    trainWeightResult(
        gDw[j].data(),
        static_cast<float *>(results[j == 0 ? 0 : 2 * j + offset]),
        arg(args, layoutOf(s).w[j]), tFeatures);
  if (s > 0)
    std::copy(gDy.begin(), gDy.end(), static_cast<float *>(results[1]));
}

/// backward_input(args..., stash..., d_res...) -> (dh [s > 0], dz0, dz1,
/// ...), or with copyWStash (dh [s > 0], dz0, h0, dz1, h1, ...).
void trainBackwardInput(int s, void *const *args, void *const *results) {
  int first = s == 0 ? 0 : 1;
  const int n = tRows * tFeatures;
  backwardLayers(
      s, args, gDy, gDz, [&](int j, const float *dz, const float *h) {
        if (!tCopyWStash) {
          std::copy(dz, dz + n, static_cast<float *>(results[first + j]));
          return;
        }
        std::copy(dz, dz + n, static_cast<float *>(results[first + 2 * j]));
        std::copy(h, h + n, static_cast<float *>(results[first + 2 * j + 1]));
      });
  if (s > 0)
    std::copy(gDy.begin(), gDy.end(), static_cast<float *>(results[0]));
}

/// backward_weight(dz0, h0, dz1, h1, ...) -> (dw0, db0, dw1, db1, ...).
void trainBackwardWeight(void *const *args, void *const *results) {
  for (int j = 0; j < tLayersPerStage; ++j)
    weightGradients(arg(args, 2 * j), arg(args, 2 * j + 1),
                    static_cast<float *>(results[2 * j]),
                    static_cast<float *>(results[2 * j + 1]));
}

thread_local int gAccumulatingCalls = 0;
thread_local std::vector<float> gFresh;

/// Runs `fn` (a B or W function), then adds what it wrote into the weight
/// gradients `weights` (result indices) to what they held before: an
/// accumulating variant, computed as the plain function then the runtime's
/// addition would.
template <typename Fn>
void addingWeights(void *const *results, const std::vector<int> &weights,
                   Fn fn) {
  ++gAccumulatingCalls;
  const int F = tFeatures;
  gFresh.resize(weights.size() * F);
  for (size_t k = 0; k < weights.size(); ++k) {
    float *dw = static_cast<float *>(results[weights[k]]);
    std::copy(dw, dw + F, gFresh.begin() + k * F);
  }
  fn();
  for (size_t k = 0; k < weights.size(); ++k) {
    float *dw = static_cast<float *>(results[weights[k]]);
    for (int f = 0; f < F; ++f)
      dw[f] = gFresh[k * F + f] + dw[f];
  }
}

/// B's results holding weight gradients: dw_j at 0 (j = 0) and 2j + offset.
std::vector<int> backwardWeightResults(int s) {
  std::vector<int> out;
  for (int j = 0; j < tLayersPerStage; ++j)
    out.push_back(j == 0 ? 0 : 2 * j + (s == 0 ? 0 : 1));
  return out;
}

/// W's: dw_j at 2j.
std::vector<int> weightWeightResults() {
  std::vector<int> out;
  for (int j = 0; j < tLayersPerStage; ++j)
    out.push_back(2 * j);
  return out;
}

template <int Stage>
void backwardAccOf(void *const *args, void *const *results) {
  addingWeights(results, backwardWeightResults(Stage),
                [&] { trainBackward(Stage, args, results); });
}

void trainBackwardWeightAcc(void *const *args, void *const *results) {
  addingWeights(results, weightWeightResults(),
                [&] { trainBackwardWeight(args, results); });
}

template <int Stage> void forwardOf(void *const *args, void *const *results) {
  trainForward(Stage, args, results);
}
template <int Stage> void backwardOf(void *const *args, void *const *results) {
  trainBackward(Stage, args, results);
}
template <int Stage>
void backwardInputOf(void *const *args, void *const *results) {
  trainBackwardInput(Stage, args, results);
}

const pw_stage_fn kForward[kMaxStages] = {
    forwardOf<0>, forwardOf<1>, forwardOf<2>, forwardOf<3>,
    forwardOf<4>, forwardOf<5>, forwardOf<6>, forwardOf<7>};
const pw_stage_fn kBackward[kMaxStages] = {
    backwardOf<0>, backwardOf<1>, backwardOf<2>, backwardOf<3>,
    backwardOf<4>, backwardOf<5>, backwardOf<6>, backwardOf<7>};
const pw_stage_fn kBackwardAcc[kMaxStages] = {
    backwardAccOf<0>, backwardAccOf<1>, backwardAccOf<2>, backwardAccOf<3>,
    backwardAccOf<4>, backwardAccOf<5>, backwardAccOf<6>, backwardAccOf<7>};
const pw_stage_fn kBackwardInput[kMaxStages] = {
    backwardInputOf<0>, backwardInputOf<1>, backwardInputOf<2>,
    backwardInputOf<3>, backwardInputOf<4>, backwardInputOf<5>,
    backwardInputOf<6>, backwardInputOf<7>};

schedule::Action compute(schedule::ActionKind kind, int stage, int mb) {
  schedule::Action action;
  action.kind = kind;
  action.stage = stage;
  action.microbatch = mb;
  return action;
}

/// All stages on rank 0: F of every stage per microbatch, then the
/// backwards (B, or I then later W), then the optimizer steps.
schedule::Program buildLocal(const TrainConfig &config) {
  using namespace schedule;
  Program program;
  program.numStages = config.stages;
  program.numMicrobatches = config.microbatches;
  program.schedule = "local";
  program.ranks.resize(1);
  RankProgram &rank = program.ranks[0];
  for (int s = 0; s < config.stages; ++s)
    rank.stages.push_back(s);
  for (int m = 0; m < config.microbatches; ++m)
    for (int s = 0; s < config.stages; ++s)
      rank.actions.push_back(compute(ActionKind::Forward, s, m));
  for (int m = 0; m < config.microbatches; ++m)
    for (int s = config.stages - 1; s >= 0; --s)
      rank.actions.push_back(compute(config.split ? ActionKind::BackwardInput
                                                  : ActionKind::Backward,
                                     s, m));
  if (config.split)
    for (int m = 0; m < config.microbatches; ++m)
      for (int s = 0; s < config.stages; ++s)
        rank.actions.push_back(compute(ActionKind::BackwardWeight, s, m));
  for (int s = 0; s < config.stages; ++s)
    rank.actions.push_back(compute(ActionKind::OptimizerStep, s, -1));
  return program;
}

/// Replica k of the pipeline runs on ranks r + k * P; each stage's
/// replicas all-reduce their gradients just before its optimizer step.
schedule::Program replicate(const schedule::Program &pipeline, int replicas) {
  using namespace schedule;
  int P = static_cast<int>(pipeline.ranks.size());
  Program program = pipeline;
  program.ranks.clear();
  for (int k = 0; k < replicas; ++k)
    for (const RankProgram &source : pipeline.ranks) {
      RankProgram rank;
      rank.rank = source.rank + k * P;
      rank.stages = source.stages;
      for (Action action : source.actions) {
        if (action.kind == ActionKind::Send || action.kind == ActionKind::Recv)
          action.peer += k * P;
        if (action.kind == ActionKind::OptimizerStep) {
          Action reduce;
          reduce.kind = ActionKind::AllReduce;
          reduce.stage = action.stage;
          for (int j = 0; j < replicas; ++j)
            reduce.group.push_back(source.rank + j * P);
          rank.actions.push_back(reduce);
        }
        rank.actions.push_back(action);
      }
      program.ranks.push_back(std::move(rank));
    }
  return program;
}

} // namespace

int accumulatingCalls() { return gAccumulatingCalls; }

schedule::Program buildTrainProgram(const TrainConfig &config) {
  using namespace schedule;
  if (config.stages < 1 || config.stages > kMaxStages)
    throw std::invalid_argument("1..8 stages");
  Program pipeline;
  if (config.schedule == "local") {
    pipeline = buildLocal(config);
  } else {
    BuildResult built;
    if (config.schedule == "gpipe")
      built = buildGPipe(config.stages, config.microbatches, false);
    else if (config.schedule == "1f1b")
      built = build1F1B(config.stages, config.microbatches);
    else if (config.schedule == "zb-h1")
      built = buildZeroBubbleH1(config.stages, config.microbatches);
    else if (config.schedule == "interleaved")
      built = buildInterleaved1F1B(config.stages / 2, 2, config.microbatches);
    else if (config.schedule == "hanayo")
      built = buildHanayo(config.stages / 2, 1, config.microbatches);
    else if (config.schedule == "zb-v")
      built = buildZeroBubbleV(config.stages / 2, config.microbatches);
    else
      throw std::invalid_argument("unknown schedule " + config.schedule);
    if (!built)
      throw std::invalid_argument(built.error);
    pipeline = std::move(*built.program);
  }
  return config.replicas > 1 ? replicate(pipeline, config.replicas) : pipeline;
}

pw_tensor_info TrainModel::tensor(const std::string &name, int32_t dtype,
                                  std::vector<int64_t> shape) {
  names.push_back(name);
  shapes.push_back(std::move(shape));
  return pw_tensor_info{names.back().c_str(), dtype,
                        static_cast<int32_t>(shapes.back().size()),
                        shapes.back().data()};
}

TrainModel::TrainModel(const TrainConfig &config)
    : cfg(config), prog(buildTrainProgram(config)) {
  const int S = cfg.stages, L = cfg.layers, B = cfg.batch, F = cfg.features;
  const int rows = B / (cfg.microbatches * cfg.replicas);
  if (rows * cfg.microbatches * cfg.replicas != B)
    throw std::invalid_argument("batch not divisible");
  if (L % S != 0)
    throw std::invalid_argument("layers not divisible by stages");
  const int K = L / S;
  tStages = S;
  tLayersPerStage = K;
  tRows = rows;
  tCopyWStash = cfg.copyWStash;
  tFeatures = F;
  tScale = 1.0f / static_cast<float>(B * F);
  bool split = cfg.split || cfg.schedule == "zb-h1" || cfg.schedule == "zb-v";

  inputs.push_back(tensor("x", PW_F32, {B, F}));
  inputs.push_back(tensor("t", PW_F32, {B, F}));
  inputIsParam = {0, 0};
  for (int layer = 0; layer < L; ++layer) {
    inputs.push_back(tensor("w" + std::to_string(layer), PW_F32, {F}));
    inputs.push_back(tensor("b" + std::to_string(layer), PW_F32, {F}));
    inputIsParam.insert(inputIsParam.end(), {1, 1});
  }
  outputs = {tensor("loss", PW_F32, {}), tensor("y", PW_F32, {B, F}),
             tensor("count", PW_I32, {B})};
  outputCombine = {PW_SUM, PW_CONCAT_BATCH, PW_CONCAT_BATCH};

  for (int s = 0; s < S; ++s) {
    bool last = s == S - 1;
    Layout l = layoutOf(s, S, K);
    std::vector<pw_tensor_info> args(l.numArgs);
    std::vector<int32_t> sources(l.numArgs), indices(l.numArgs);
    auto set = [&](int a, pw_tensor_info info, int source, int index) {
      args[a] = info;
      sources[a] = source;
      indices[a] = index;
    };
    if (l.x >= 0)
      set(l.x, tensor("x", PW_F32, {rows, F}), PW_FROM_DATA, 0);
    if (l.t >= 0)
      set(l.t, tensor("t", PW_F32, {rows, F}), PW_FROM_DATA, 1);
    if (l.h >= 0)
      set(l.h, tensor("h", PW_F32, {rows, F}), PW_FROM_PREVIOUS, 0);
    if (l.c >= 0)
      set(l.c, tensor("c", PW_I32, {rows}), PW_FROM_PREVIOUS, 1);
    std::vector<int32_t> gradArgs;
    if (l.h >= 0)
      gradArgs.push_back(l.h);
    for (int j = 0; j < K; ++j) {
      int layer = s * K + j;
      set(l.w[j], tensor("w" + std::to_string(layer), PW_F32, {F}),
          PW_FROM_PARAM, 2 + 2 * layer);
      set(l.b[j], tensor("b" + std::to_string(layer), PW_F32, {F}),
          PW_FROM_PARAM, 3 + 2 * layer);
      gradArgs.push_back(l.w[j]);
      gradArgs.push_back(l.b[j]);
    }
    std::sort(gradArgs.begin(), gradArgs.end());
    std::vector<pw_tensor_info> results;
    std::vector<int32_t> hasGrad;
    if (last) {
      results.push_back(tensor("loss", PW_F32, {}));
      hasGrad.push_back(1);
    }
    results.push_back(tensor("y", PW_F32, {rows, F}));
    results.push_back(tensor("c", PW_I32, {rows}));
    hasGrad.insert(hasGrad.end(), {1, 0});
    std::vector<pw_tensor_info> stash, wstash;
    // h_j is the stage's input (x: data; h: the previous stage's result)
    // for j = 0, else the stash value y_{j-1}: passed through unless
    // copyWStash.
    std::vector<int32_t> wstashSource;
    for (int j = 0; j < K; ++j) {
      stash.push_back(tensor("y" + std::to_string(j), PW_F32, {rows, F}));
      wstash.push_back(tensor("dz" + std::to_string(j), PW_F32, {rows, F}));
      wstash.push_back(tensor("h" + std::to_string(j), PW_F32, {rows, F}));
      wstashSource.push_back(-1);
      wstashSource.push_back(j > 0 ? l.numArgs + j - 1 : s == 0 ? l.x : l.h);
    }

    pw_stage stage = {};
    tensorLists.push_back(std::move(args));
    stage.num_args = static_cast<int32_t>(tensorLists.back().size());
    stage.args = tensorLists.back().data();
    intLists.push_back(std::move(sources));
    stage.arg_source = intLists.back().data();
    intLists.push_back(std::move(indices));
    stage.arg_index = intLists.back().data();
    tensorLists.push_back(std::move(results));
    stage.num_results = static_cast<int32_t>(tensorLists.back().size());
    stage.results = tensorLists.back().data();
    stage.forward = kForward[s];
    tensorLists.push_back(std::move(stash));
    stage.num_stash = K;
    stage.stash = tensorLists.back().data();
    intLists.push_back(std::move(hasGrad));
    stage.result_has_grad = intLists.back().data();
    intLists.push_back(std::move(gradArgs));
    stage.num_grad_args = static_cast<int32_t>(intLists.back().size());
    stage.grad_args = intLists.back().data();
    stage.backward = cfg.noWholeBackward ? nullptr : kBackward[s];
    if (split) {
      stage.backward_input = kBackwardInput[s];
      stage.backward_weight = trainBackwardWeight;
      tensorLists.push_back(std::move(wstash));
      stage.num_wstash = 2 * K;
      stage.wstash = tensorLists.back().data();
      if (!cfg.copyWStash) {
        intLists.push_back(std::move(wstashSource));
        stage.wstash_source = intLists.back().data();
      }
    }
    if (cfg.accumulating) {
      // Bit 0: B accumulates the weight gradients; bit 1: W does.
      // (gradArgs moved into the stage: read them back from there.)
      std::vector<int32_t> accumulates(stage.num_grad_args, 0);
      for (int k = 0; k < stage.num_grad_args; ++k)
        for (int j = 0; j < K; ++j)
          if (stage.grad_args[k] == l.w[j])
            accumulates[k] = (stage.backward ? 1 : 0) | (split ? 2 : 0);
      intLists.push_back(std::move(accumulates));
      stage.grad_accumulates = intLists.back().data();
      stage.backward_acc = stage.backward ? kBackwardAcc[s] : nullptr;
      stage.backward_weight_acc = split ? trainBackwardWeightAcc : nullptr;
    }
    stages.push_back(stage);
  }

  rankTables.encode(prog, model);

  model.abi_version = PW_MODEL_ABI_VERSION;
  model.name = "train";
  model.arm_updates = cfg.fusedUpdates ? trainArmUpdates : nullptr;
  names.push_back(prog.schedule);
  model.schedule = names.back().c_str();
  model.num_stages = S;
  model.num_microbatches = cfg.microbatches;
  model.forward_only = 0;
  model.num_inputs = static_cast<int32_t>(inputs.size());
  model.inputs = inputs.data();
  model.input_is_param = inputIsParam.data();
  model.num_outputs = static_cast<int32_t>(outputs.size());
  model.outputs = outputs.data();
  model.output_combine = outputCombine.data();
  model.stages = stages.data();
}

std::vector<float> makeTrainInput(int rows, int features) {
  std::vector<float> x(static_cast<size_t>(rows) * features);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(static_cast<int>((i * 7) % 23) - 11) * 0.125f;
  return x;
}

std::vector<float> makeTrainTarget(int rows, int features) {
  std::vector<float> t(static_cast<size_t>(rows) * features);
  for (size_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<float>(static_cast<int>((i * 5) % 19) - 9) / 12.0f;
  return t;
}

std::vector<float> makeTrainWeight(int layer, int features) {
  std::vector<float> w(features);
  for (int f = 0; f < features; ++f)
    w[f] = 0.6f + 0.2f * static_cast<float>((layer + f) % 5);
  return w;
}

std::vector<float> makeTrainBias(int layer, int features) {
  std::vector<float> b(features);
  for (int f = 0; f < features; ++f)
    b[f] =
        0.05f * static_cast<float>(f % 3) - 0.05f * static_cast<float>(layer);
  return b;
}

std::vector<std::vector<float>> makeTrainParameters(const TrainConfig &config) {
  std::vector<std::vector<float>> params;
  for (int layer = 0; layer < config.layers; ++layer) {
    params.push_back(makeTrainWeight(layer, config.features));
    params.push_back(makeTrainBias(layer, config.features));
  }
  return params;
}

TrainState initialTrainState(const TrainConfig &config) {
  TrainState state;
  for (int layer = 0; layer < config.layers; ++layer) {
    std::vector<float> w = makeTrainWeight(layer, config.features);
    std::vector<float> b = makeTrainBias(layer, config.features);
    state.w.emplace_back(w.begin(), w.end());
    state.b.emplace_back(b.begin(), b.end());
  }
  state.m.assign(2 * config.layers, std::vector<double>(config.features, 0));
  state.v = state.m;
  return state;
}

TrainGradients referenceGradients(const TrainConfig &config,
                                  const TrainState &state, const float *x,
                                  const float *t) {
  const int S = config.layers, B = config.batch, F = config.features;
  const double scale = 1.0 / (static_cast<double>(B) * F);
  std::vector<std::vector<double>> in(S), out(S);
  std::vector<double> h(x, x + static_cast<size_t>(B) * F);
  for (int s = 0; s < S; ++s) {
    in[s] = h;
    for (int r = 0; r < B; ++r)
      for (int f = 0; f < F; ++f)
        h[r * F + f] =
            std::tanh(in[s][r * F + f] * state.w[s][f] + state.b[s][f]);
    out[s] = h;
  }
  TrainGradients g;
  std::vector<double> dy(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    double d = h[i] - t[i];
    g.loss += d * d * scale;
    dy[i] = 2 * scale * d;
  }
  g.dw.assign(S, std::vector<double>(F, 0));
  g.db = g.dw;
  for (int s = S - 1; s >= 0; --s) {
    std::vector<double> dh(dy.size());
    for (int r = 0; r < B; ++r)
      for (int f = 0; f < F; ++f) {
        size_t i = static_cast<size_t>(r) * F + f;
        double dz = dy[i] * (1 - out[s][i] * out[s][i]);
        g.dw[s][f] += dz * in[s][i];
        g.db[s][f] += dz;
        dh[i] = dz * state.w[s][f];
      }
    dy = dh;
  }
  return g;
}

void referenceUpdate(const OptimizerConfig &c, int64_t step,
                     std::vector<double> &p, const std::vector<double> &grad,
                     std::vector<double> &m, std::vector<double> &v) {
  const double t = static_cast<double>(step);
  for (size_t i = 0; i < p.size(); ++i) {
    double g = grad[i];
    if (c.kind == OptimizerKind::SGD) {
      // torch.optim.SGD docs: g += wd * p; b = mu * b + (1 - d) * g (b = g
      // at t = 1); g = nesterov ? g + mu * b : b; p -= lr * g.
      g += c.weightDecay * p[i];
      if (c.momentum != 0) {
        m[i] = step == 1 ? g : c.momentum * m[i] + (1 - c.dampening) * g;
        g = c.nesterov ? g + c.momentum * m[i] : m[i];
      }
      p[i] -= c.lr * g;
      continue;
    }
    // torch.optim.Adam / AdamW docs.
    if (c.kind == OptimizerKind::AdamW)
      p[i] *= 1 - c.lr * c.weightDecay;
    else
      g += c.weightDecay * p[i];
    m[i] = c.beta1 * m[i] + (1 - c.beta1) * g;
    v[i] = c.beta2 * v[i] + (1 - c.beta2) * g * g;
    double mHat = m[i] / (1 - std::pow(c.beta1, t));
    double vHat = v[i] / (1 - std::pow(c.beta2, t));
    p[i] -= c.lr * mHat / (std::sqrt(vHat) + c.eps);
  }
}

std::vector<double> referenceTraining(const TrainConfig &config,
                                      const OptimizerConfig &optimizer,
                                      const std::vector<float> &xAll,
                                      const std::vector<float> &tAll,
                                      int batches, int steps,
                                      TrainState &state) {
  std::vector<double> losses;
  size_t batchSize = static_cast<size_t>(config.batch) * config.features;
  for (int k = 0; k < steps; ++k) {
    size_t at = static_cast<size_t>(k % batches) * batchSize;
    TrainGradients g =
        referenceGradients(config, state, xAll.data() + at, tAll.data() + at);
    losses.push_back(g.loss);
    ++state.steps;
    for (int s = 0; s < config.layers; ++s) {
      referenceUpdate(optimizer, state.steps, state.w[s], g.dw[s],
                      state.m[2 * s], state.v[2 * s]);
      referenceUpdate(optimizer, state.steps, state.b[s], g.db[s],
                      state.m[2 * s + 1], state.v[2 * s + 1]);
    }
  }
  return losses;
}

} // namespace pipewave::runtime::test
