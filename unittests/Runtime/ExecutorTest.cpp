//===- ExecutorTest.cpp - The executor on the local backend ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Trace.h"

#include "TestModel.h"
#include "TestUtil.h"

#include <cstdint>
#include <cstring>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// Runs `config` (one rank) on the local backend and checks the outputs
/// against the serial reference.
void runAndCheck(const ModelConfig &config, int steps, Trace *trace = nullptr,
                 void (*edit)(ArithmeticModel &) = nullptr) {
  ArithmeticModel model(config);
  if (edit)
    edit(model);
  ASSERT_NO_THROW(validateModel(*model.get()));
  ASSERT_EQ(model.get()->num_ranks, 1);
  std::vector<float> x = makeInput(config.batch, config.features);
  std::vector<std::vector<float>> params = makeParameters(config);
  std::vector<void *> inputs = inputPointers({x.data()}, params);

  auto backend = createLocalBackend();
  ExecPlan plan = planExecution(*model.get(), 0);
  Executor executor(*model.get(), plan, *backend, inputs, trace);
  ASSERT_TRUE(executor.holdsOutputs());
  Reference ref = computeReference(config, x, params);
  for (int step = 0; step < steps; ++step) {
    executor.runStep();
    const std::vector<HostTensor> &out = executor.outputs();
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].shape,
              (std::vector<int64_t>{config.batch, config.features}));
    const auto *y = static_cast<const float *>(out[0].data());
    for (size_t i = 0; i < ref.y.size(); ++i)
      ASSERT_EQ(y[i], ref.y[i]) << "y[" << i << "] step " << step;
    const auto *count = static_cast<const int32_t *>(out[1].data());
    for (int r = 0; r < config.batch; ++r)
      ASSERT_EQ(count[r], config.stages);
    EXPECT_EQ(*static_cast<const float *>(out[2].data()), ref.total);
  }
}

/// Stage 1's forward wrapped to declare a workspace of kWorkspaceBytes:
/// the executor must pass one buffer, 64-byte aligned, the same at every
/// call, after the arguments; the wrapper scribbles over it.
constexpr int64_t kWorkspaceBytes = 200;
pw_stage_fn gWrappedForward = nullptr;
int gWorkspaceArg = 0;
int gWorkspaceCalls = 0;
void *gWorkspaceSeen = nullptr;

void forwardWithWorkspace(void *const *args, void *const *results) {
  void *workspace = args[gWorkspaceArg];
  EXPECT_NE(workspace, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(workspace) % 64, 0u);
  if (gWorkspaceSeen) {
    EXPECT_EQ(workspace, gWorkspaceSeen);
  }
  gWorkspaceSeen = workspace;
  if (workspace)
    std::memset(workspace, 0xff, kWorkspaceBytes);
  ++gWorkspaceCalls;
  gWrappedForward(args, results);
}

void giveStage1AWorkspace(ArithmeticModel &model) {
  auto *stage = const_cast<pw_stage *>(&model.get()->stages[1]);
  gWrappedForward = stage->forward;
  gWorkspaceArg = stage->num_args;
  stage->forward = forwardWithWorkspace;
  stage->forward_workspace = kWorkspaceBytes;
}

} // namespace

TEST(ExecutorTest, PassesTheWorkspaceAfterTheArguments) {
  ModelConfig config;
  config.stages = 2;
  config.ranks = 1;
  config.microbatches = 2;
  config.batch = 4;
  config.placement = Placement::Contiguous;
  runAndCheck(config, 3, nullptr, giveStage1AWorkspace);
  EXPECT_EQ(gWorkspaceCalls, 3 * 2);
}

TEST(ExecutorTest, OneStageComputesTwoXPlusW) {
  ModelConfig config;
  config.stages = config.ranks = 1;
  config.microbatches = 4;
  config.batch = 8;
  config.features = 3;
  runAndCheck(config, 1);
  // y = 2x + p0 by hand for two entries.
  std::vector<float> x = makeInput(8, 3), p = makeParameter(0, 3);
  Reference ref = computeReference(config, x, {p});
  EXPECT_EQ(ref.y[0], 2 * x[0] + p[0]);
  EXPECT_EQ(ref.y[23], 2 * x[23] + p[2]);
  EXPECT_EQ(ref.y[0], -3.875f); // x[0] = -2, p0[0] = 0.125
}

TEST(ExecutorTest, SeveralStagesOnOneRankHandOffLocally) {
  ModelConfig config;
  config.stages = 3;
  config.ranks = 1;
  config.microbatches = 2;
  config.batch = 6;
  config.placement = Placement::Contiguous;
  runAndCheck(config, 3);
}

TEST(ExecutorTest, RecordsTraceSlices) {
  ModelConfig config;
  config.stages = 2;
  config.ranks = 1;
  config.microbatches = 4;
  config.placement = Placement::Contiguous;
  Trace trace;
  trace.start(12.5);
  runAndCheck(config, 2, &trace);
  EXPECT_EQ(trace.size(), 2u * 2u * 4u) << "one slice per F";
  std::string json = trace.eventsJson(0);
  EXPECT_NE(json.find("{\"name\":\"clock_origin\",\"ph\":\"M\",\"pid\":0,"
                      "\"tid\":0,\"args\":{\"steady_us\":1.25e+07}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"name\":\"F s1 mb3\",\"cat\":\"compute\",\"ph\":\"X\","
                      "\"pid\":0,\"tid\":0"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"args\":{\"step\":2}"), std::string::npos);
}

TEST(ExecutorTest, LocalBackendMatchesMessagesToItself) {
  auto backend = createLocalBackend();
  float out[2] = {1, 2}, in[2] = {0, 0};
  RequestId recv = backend->irecv(in, sizeof(in), 0, 7);
  EXPECT_FALSE(backend->test(recv));
  RequestId send = backend->isend(out, sizeof(out), 0, 7);
  backend->wait(send, "send");
  backend->wait(recv, "recv");
  EXPECT_EQ(in[1], 2.0f);
  EXPECT_TRUE(backend->agree(true));
  float grads[3] = {1, 2, 3};
  backend->allreduceSum(grads, 3, {}, "allreduce");
  EXPECT_EQ(grads[2], 3.0f);
  EXPECT_EQ(backend->gather("abc", 0), std::vector<std::string>{"abc"});
  EXPECT_NE(PW_ERROR_OF(backend->isend(out, 8, 1, 0)).find("only rank 0"),
            std::string::npos);
}

TEST(ExecutorTest, WatchdogNamesWhatItWaitedFor) {
  auto backend = createLocalBackend();
  backend->setTimeout(0.05);
  float in = 0;
  RequestId recv = backend->irecv(&in, 4, 0, 3);
  std::string error =
      PW_ERROR_OF(backend->wait(recv, "recv act stage 1 mb 3 from rank 0"));
  EXPECT_NE(error.find("timed out after 0.05 s waiting for 'recv act stage 1 "
                       "mb 3 from rank 0'"),
            std::string::npos)
      << error;
}
