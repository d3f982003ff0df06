//===- TestModel.cpp - A hand-written pw_model for runtime tests ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include "pipewave-runtime/Loopback.h"

#include "pipewave/Schedule/Generate.h"

#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

namespace pipewave::runtime::test {

namespace {

// Shapes of the model in this process (stage functions take no context).
int gStages = 1;
int gRows = 1;
int gFeatures = 1;

int envInt(const char *name, int fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::atoi(value) : fallback;
}

/// The failure hooks of the MPI tests.
void testHooks() {
  thread_local int calls = 0;
  // The rank: the loopback thread's, else the MPI process's.
  static const int processRank =
      envInt("OMPI_COMM_WORLD_RANK", envInt("PMIX_RANK", 0));
  const int rank =
      currentLoopbackRank() >= 0 ? currentLoopbackRank() : processRank;
  static const int dieRank = envInt("PW_TEST_DIE_RANK", -1);
  static const int dieAfter = envInt("PW_TEST_DIE_AFTER", 0);
  static const int hangRank = envInt("PW_TEST_HANG_RANK", -1);
  if (rank == dieRank && calls++ >= dieAfter)
    _exit(1);
  if (rank == hangRank)
    for (;;)
      pause();
}

template <int Stage>
void stageForward(void *const *args, void *const *results) {
  testHooks();
  const float *in = static_cast<const float *>(args[0]);
  const int32_t *countIn =
      Stage == 0 ? nullptr : static_cast<const int32_t *>(args[1]);
  const float *param = static_cast<const float *>(args[Stage == 0 ? 1 : 2]);
  float *y = static_cast<float *>(results[0]);
  int32_t *count = static_cast<int32_t *>(results[1]);
  const float scale = static_cast<float>(Stage + 2);
  for (int r = 0; r < gRows; ++r) {
    for (int f = 0; f < gFeatures; ++f)
      y[r * gFeatures + f] = in[r * gFeatures + f] * scale + param[f];
    count[r] = (countIn ? countIn[r] : 0) + 1;
  }
  if (Stage == gStages - 1) {
    float total = 0;
    for (int i = 0; i < gRows * gFeatures; ++i)
      total += y[i];
    *static_cast<float *>(results[2]) = total;
  }
}

constexpr int kMaxStages = 8;
const pw_stage_fn kForward[kMaxStages] = {
    stageForward<0>, stageForward<1>, stageForward<2>, stageForward<3>,
    stageForward<4>, stageForward<5>, stageForward<6>, stageForward<7>};

int rankOf(const ModelConfig &config, int stage) {
  switch (config.placement) {
  case Placement::Pipeline:
    return stage;
  case Placement::Looped:
    return stage % config.ranks;
  case Placement::Contiguous:
    return stage / (config.stages / config.ranks);
  }
  return 0;
}

/// For each microbatch, each held stage in ascending order: recv, F, send.
schedule::Program buildMicrobatchMajor(const ModelConfig &config) {
  using namespace schedule;
  Program program;
  program.numStages = config.stages;
  program.numMicrobatches = config.microbatches;
  program.forwardOnly = true;
  program.schedule = "microbatch-major";
  program.ranks.resize(config.ranks);
  for (int r = 0; r < config.ranks; ++r)
    program.ranks[r].rank = r;
  for (int s = 0; s < config.stages; ++s)
    program.ranks[rankOf(config, s)].stages.push_back(s);
  for (int m = 0; m < config.microbatches; ++m) {
    for (int s = 0; s < config.stages; ++s) {
      int r = rankOf(config, s);
      auto &actions = program.ranks[r].actions;
      if (s > 0 && rankOf(config, s - 1) != r) {
        Action recv;
        recv.kind = ActionKind::Recv;
        recv.stage = s;
        recv.microbatch = m;
        recv.peer = rankOf(config, s - 1);
        recv.tag = messageTag(Payload::Activation, s - 1, m, config.stages,
                              config.microbatches);
        actions.push_back(recv);
      }
      Action forward;
      forward.kind = ActionKind::Forward;
      forward.stage = s;
      forward.microbatch = m;
      actions.push_back(forward);
      if (s + 1 < config.stages && rankOf(config, s + 1) != r) {
        Action send;
        send.kind = ActionKind::Send;
        send.stage = s;
        send.microbatch = m;
        send.peer = rankOf(config, s + 1);
        send.tag = messageTag(Payload::Activation, s, m, config.stages,
                              config.microbatches);
        actions.push_back(send);
      }
    }
  }
  return program;
}

} // namespace

schedule::Program buildProgram(const ModelConfig &config) {
  using namespace schedule;
  if (config.stages < 1 || config.stages > kMaxStages)
    throw std::invalid_argument("1..8 stages");
  if (config.placement != Placement::Pipeline)
    return buildMicrobatchMajor(config);
  BuildResult built = config.schedule == "1f1b"
                          ? build1F1B(config.stages, config.microbatches)
                          : buildGPipe(config.stages, config.microbatches,
                                       /*forwardOnly=*/true);
  if (!built)
    throw std::invalid_argument(built.error);
  Program program = std::move(*built.program);
  if (program.forwardOnly)
    return program;
  // The forward part of a training program.
  for (RankProgram &rank : program.ranks) {
    std::vector<Action> kept;
    for (const Action &action : rank.actions)
      if (action.kind == ActionKind::Forward ||
          ((action.kind == ActionKind::Send ||
            action.kind == ActionKind::Recv) &&
           action.payload == Payload::Activation))
        kept.push_back(action);
    rank.actions = std::move(kept);
  }
  program.forwardOnly = true;
  return program;
}

pw_tensor_info ArithmeticModel::tensor(const std::string &name, int32_t dtype,
                                       std::vector<int64_t> shape) {
  names.push_back(name);
  shapes.push_back(std::move(shape));
  return pw_tensor_info{names.back().c_str(), dtype,
                        static_cast<int32_t>(shapes.back().size()),
                        shapes.back().data()};
}

void RankTables::encode(const schedule::Program &program, pw_model &model) {
  for (const schedule::RankProgram &rank : program.ranks) {
    rankStages.emplace_back(rank.stages.begin(), rank.stages.end());
    std::vector<pw_action> actions;
    for (const schedule::Action &action : rank.actions) {
      pw_action out = {};
      out.kind = static_cast<int32_t>(action.kind);
      out.stage = action.stage;
      out.microbatch = action.microbatch;
      out.payload = static_cast<int32_t>(action.payload);
      out.peer = action.peer;
      out.tag = action.tag;
      out.group_begin = static_cast<int32_t>(groupRanks.size());
      out.group_size = static_cast<int32_t>(action.group.size());
      groupRanks.insert(groupRanks.end(), action.group.begin(),
                        action.group.end());
      actions.push_back(out);
    }
    rankActions.push_back(std::move(actions));
    ranks.push_back(
        pw_rank_program{static_cast<int32_t>(rankStages.back().size()),
                        rankStages.back().data(),
                        static_cast<int32_t>(rankActions.back().size()),
                        rankActions.back().data()});
  }
  model.num_ranks = static_cast<int32_t>(ranks.size());
  model.ranks = ranks.data();
  model.group_ranks = groupRanks.empty() ? nullptr : groupRanks.data();
}

ArithmeticModel::ArithmeticModel(const ModelConfig &config)
    : cfg(config), prog(buildProgram(config)) {
  const int S = cfg.stages, M = cfg.microbatches, B = cfg.batch,
            F = cfg.features, rows = B / M;
  gStages = S;
  gRows = rows;
  gFeatures = F;

  inputs.push_back(tensor("x", PW_F32, {B, F}));
  inputIsParam.push_back(0);
  for (int s = 0; s < S; ++s) {
    inputs.push_back(tensor("p" + std::to_string(s), PW_F32, {F}));
    inputIsParam.push_back(1);
  }
  outputs = {tensor("y", PW_F32, {B, F}), tensor("count", PW_I32, {B}),
             tensor("total", PW_F32, {})};
  outputCombine = {PW_CONCAT_BATCH, PW_CONCAT_BATCH, PW_SUM};

  for (int s = 0; s < S; ++s) {
    std::vector<pw_tensor_info> args;
    std::vector<int32_t> sources, indices;
    if (s == 0) {
      args.push_back(tensor("x", PW_F32, {rows, F}));
      sources.push_back(PW_FROM_DATA);
      indices.push_back(0);
    } else {
      args.push_back(tensor("y", PW_F32, {rows, F}));
      args.push_back(tensor("c", PW_I32, {rows}));
      sources.insert(sources.end(), {PW_FROM_PREVIOUS, PW_FROM_PREVIOUS});
      indices.insert(indices.end(), {0, 1});
    }
    args.push_back(tensor("p" + std::to_string(s), PW_F32, {F}));
    sources.push_back(PW_FROM_PARAM);
    indices.push_back(s + 1);
    std::vector<pw_tensor_info> results = {tensor("y", PW_F32, {rows, F}),
                                           tensor("c", PW_I32, {rows})};
    if (s == S - 1)
      results.push_back(tensor("total", PW_F32, {}));
    stageArgs.push_back(std::move(args));
    stageResults.push_back(std::move(results));
    argSource.push_back(std::move(sources));
    argIndex.push_back(std::move(indices));
    pw_stage stage = {};
    stage.num_args = static_cast<int32_t>(stageArgs.back().size());
    stage.args = stageArgs.back().data();
    stage.arg_source = argSource.back().data();
    stage.arg_index = argIndex.back().data();
    stage.num_results = static_cast<int32_t>(stageResults.back().size());
    stage.results = stageResults.back().data();
    stage.forward = kForward[s];
    stages.push_back(stage);
  }

  rankTables.encode(prog, model);

  model.abi_version = PW_MODEL_ABI_VERSION;
  model.name = "arithmetic";
  names.push_back(prog.schedule);
  model.schedule = names.back().c_str();
  model.num_stages = S;
  model.num_microbatches = M;
  model.forward_only = 1;
  model.num_inputs = static_cast<int32_t>(inputs.size());
  model.inputs = inputs.data();
  model.input_is_param = inputIsParam.data();
  model.num_outputs = static_cast<int32_t>(outputs.size());
  model.outputs = outputs.data();
  model.output_combine = outputCombine.data();
  model.stages = stages.data();
}

std::vector<float> makeInput(int batch, int features) {
  std::vector<float> x(static_cast<size_t>(batch) * features);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.25f;
  return x;
}

std::vector<float> makeParameter(int stage, int features) {
  std::vector<float> p(features);
  for (int f = 0; f < features; ++f)
    p[f] = 0.125f * static_cast<float>(stage + 1) - 0.0625f * f;
  return p;
}

std::vector<std::vector<float>> makeParameters(const ModelConfig &config) {
  std::vector<std::vector<float>> params;
  for (int s = 0; s < config.stages; ++s)
    params.push_back(makeParameter(s, config.features));
  return params;
}

std::vector<void *> inputPointers(std::vector<void *> data,
                                  std::vector<std::vector<float>> &params) {
  for (auto &p : params)
    data.push_back(p.data());
  return data;
}

Reference computeReference(const ModelConfig &config,
                           const std::vector<float> &x,
                           const std::vector<std::vector<float>> &params) {
  const int M = config.microbatches, F = config.features,
            rows = config.batch / M;
  Reference ref;
  ref.y = x;
  ref.count.assign(config.batch, 0);
  for (int s = 0; s < config.stages; ++s) {
    const float scale = static_cast<float>(s + 2);
    for (int r = 0; r < config.batch; ++r) {
      for (int f = 0; f < F; ++f)
        ref.y[r * F + f] = ref.y[r * F + f] * scale + params[s][f];
      ref.count[r] += 1;
    }
  }
  float total = 0;
  for (int m = 0; m < M; ++m) {
    float partial = 0;
    for (int i = 0; i < rows * F; ++i)
      partial += ref.y[m * rows * F + i];
    total += partial;
  }
  ref.total = total;
  return ref;
}

} // namespace pipewave::runtime::test
