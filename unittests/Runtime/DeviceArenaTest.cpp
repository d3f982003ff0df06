//===- DeviceArenaTest.cpp - Arena offsets, sizing and device choice ------===//
//
// Part of the pipewave project.
//
// The CPU side of the CUDA device: the arena's offset logic, the plan's
// bound of what the executor allocates (checked by running the executor on
// an asynchronous test device whose allocations come from one reserved
// arena, failing on overflow), the choice of device from the model, and
// the executor's graph brackets.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/DeviceArena.h"
#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Tensor.h"

#include "TestModel.h"
#include "TestUtil.h"

#include <cstdlib>
#include <cstring>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

TEST(DeviceArenaTest, BumpsAlignedOffsets) {
  DeviceArena arena(1000);
  EXPECT_EQ(arena.allocate(10), 0u);
  EXPECT_EQ(arena.allocate(64), 64u);
  EXPECT_EQ(arena.allocate(65), 128u);
  EXPECT_EQ(arena.used(), 256u);
  // Zero bytes take no room.
  EXPECT_EQ(arena.allocate(0), 256u);
  EXPECT_EQ(arena.used(), 256u);
}

TEST(DeviceArenaTest, SaysWhenFull) {
  DeviceArena arena(256);
  EXPECT_EQ(arena.allocate(130), 0u);
  EXPECT_EQ(arena.allocate(65), DeviceArena::npos);
  EXPECT_EQ(arena.allocate(SIZE_MAX - 10), DeviceArena::npos);
  EXPECT_EQ(arena.allocate(64), 192u);
  EXPECT_EQ(arena.used(), 256u);
  EXPECT_EQ(arena.allocate(1), DeviceArena::npos);
}

TEST(DeviceArenaTest, ReleasesLikeAStack) {
  DeviceArena arena(1024);
  size_t a = arena.allocate(64), b = arena.allocate(64), c = arena.allocate(64);
  EXPECT_EQ(c, 128u);
  // Not the top: kept until what is above it goes.
  arena.release(b);
  EXPECT_EQ(arena.used(), 192u);
  arena.release(c);
  EXPECT_EQ(arena.used(), 64u);
  EXPECT_EQ(arena.allocate(128), 64u);
  arena.release(12345); // unknown: ignored
  EXPECT_EQ(arena.peak(), 192u);
  arena.release(a);
  EXPECT_EQ(arena.used(), 192u);
  arena.reset();
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_EQ(arena.allocate(1024), 0u);
}

namespace {

/// An asynchronous test device whose memory comes from one reserve()d
/// block through a DeviceArena, as the CUDA device's does; allocating
/// beyond it fails the test.
class ArenaDevice final : public Device {
public:
  ArenaDevice() : inner(createAsyncTestDevice(2)) {}
  ~ArenaDevice() override {
    inner->synchronize();
    inner->deallocate(base);
  }
  std::string name() const override { return "arena"; }
  bool sharesHostMemory() const override { return false; }
  void reserve(size_t bytes) override {
    ASSERT_EQ(base, nullptr) << "reserved twice";
    reserved = bytes;
    base = static_cast<char *>(inner->allocate(bytes));
    arena = DeviceArena(bytes);
  }
  void *allocate(size_t bytes) override {
    size_t offset = arena.allocate(bytes);
    EXPECT_NE(offset, DeviceArena::npos)
        << bytes << " bytes beyond the bound of " << reserved;
    if (offset == DeviceArena::npos)
      throw Error("arena full");
    return bytes ? base + offset : nullptr;
  }
  void deallocate(void *ptr) override {
    if (ptr)
      arena.release(static_cast<char *>(ptr) - base);
  }
  StreamId createStream() override { return inner->createStream(); }
  EventId createEvent() override { return inner->createEvent(); }
  void record(EventId e, StreamId s) override { inner->record(e, s); }
  void wait(StreamId s, EventId e) override { inner->wait(s, e); }
  void synchronize(EventId e) override { inner->synchronize(e); }
  void synchronize() override { inner->synchronize(); }
  void fill(StreamId s, void *dst, unsigned char byte, size_t n) override {
    inner->fill(s, dst, byte, n);
  }
  void copy(StreamId s, void *dst, const void *src, size_t n,
            CopyKind kind) override {
    inner->copy(s, dst, src, n, kind);
  }
  void accumulate(StreamId s, int32_t dtype, void *dst, const void *src,
                  size_t count) override {
    inner->accumulate(s, dtype, dst, src, count);
  }
  void optimizerUpdate(StreamId s, const OptimizerConfig &config, int64_t step,
                       float *param, const float *grad,
                       const std::vector<float *> &state,
                       size_t count) override {
    inner->optimizerUpdate(s, config, step, param, grad, state, count);
  }
  void call(StreamId s, pw_stage_fn fn, const std::vector<void *> &args,
            const std::vector<void *> &results) override {
    inner->call(s, fn, args, results);
  }
  bool supportsGraphs() const override { return graphs; }
  void beginGraphStep() override { ++begins; }
  void endGraphStep() override { ++ends; }

  size_t reserved = 0;
  DeviceArena arena;
  bool graphs = false;
  int begins = 0, ends = 0;

private:
  std::unique_ptr<Device> inner;
  char *base = nullptr;
};

/// Trains `config` for 3 steps on the host device and on an ArenaDevice:
/// the losses agree bit for bit and the arena was large enough.
void checkTraining(const TrainConfig &config, const OptimizerConfig &opt) {
  SCOPED_TRACE(config.schedule + " stages " + std::to_string(config.stages) +
               " mb " + std::to_string(config.microbatches) + " split " +
               std::to_string(config.split) + " " + describeOptimizer(opt));
  TrainModel model(config);
  validateModel(*model.get());
  std::vector<float> x = makeTrainInput(config.batch, config.features);
  std::vector<float> t = makeTrainTarget(config.batch, config.features);
  std::vector<std::vector<float>> params = makeTrainParameters(config);
  std::vector<std::vector<float>> hostParams = params;
  auto inputsOf = [&](std::vector<std::vector<float>> &ps) {
    return inputPointers({x.data(), t.data()}, ps);
  };
  auto backend = createLocalBackend();
  ExecPlan plan = planExecution(*model.get(), 0);
  Executor host(*model.get(), plan, *backend, inputsOf(hostParams), nullptr,
                opt);
  ArenaDevice device;
  {
    Executor run(*model.get(), plan, *backend, inputsOf(params), nullptr, opt,
                 &device);
    EXPECT_EQ(device.reserved,
              deviceMemoryBound(*model.get(), plan, opt, inputsOf(params)));
    for (int k = 0; k < 3; ++k) {
      host.runStep();
      run.runStep();
      EXPECT_EQ(host.loss(), run.loss());
    }
    EXPECT_LE(device.arena.peak(), device.reserved);
  }
  // The executor gave everything back.
  EXPECT_EQ(device.arena.used(), 0u);
}

} // namespace

TEST(DeviceArenaTest, BoundHoldsEveryTrainingAllocation) {
  OptimizerConfig sgd;
  sgd.momentum = 0.9;
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  adam.lr = 0.05;
  TrainConfig config;
  config.schedule = "local";
  for (int stages : {1, 2, 4})
    for (int mb : {1, 4})
      for (bool split : {false, true}) {
        config.stages = stages;
        config.microbatches = mb;
        config.split = split;
        checkTraining(config, adam);
      }
  config.stages = 2;
  config.microbatches = 2;
  config.split = false;
  checkTraining(config, sgd);
  checkTraining(config, OptimizerConfig());
}

TEST(DeviceArenaTest, BoundHoldsInference) {
  ModelConfig config;
  config.stages = 3;
  config.ranks = 1;
  config.placement = Placement::Contiguous;
  ArithmeticModel model(config);
  std::vector<float> x = makeInput(config.batch, config.features);
  std::vector<std::vector<float>> params = makeParameters(config);
  std::vector<void *> inputs = inputPointers({x.data()}, params);
  auto backend = createLocalBackend();
  ExecPlan plan = planExecution(*model.get(), 0);
  ArenaDevice device;
  Executor executor(*model.get(), plan, *backend, inputs, nullptr, {}, &device);
  executor.runStep();
  Reference ref = computeReference(config, x, params);
  EXPECT_EQ(std::memcmp(executor.outputs()[0].data(), ref.y.data(),
                        ref.y.size() * sizeof(float)),
            0);
  EXPECT_LE(device.arena.peak(), device.reserved);
  EXPECT_GT(device.arena.peak(), 0u);
}

TEST(DeviceArenaTest, GraphStepsAreBracketed) {
  TrainConfig config;
  config.schedule = "local";
  config.stages = 2;
  TrainModel model(config);
  std::vector<float> x = makeTrainInput(config.batch, config.features);
  std::vector<float> t = makeTrainTarget(config.batch, config.features);
  std::vector<std::vector<float>> params = makeTrainParameters(config);
  std::vector<void *> inputs = inputPointers({x.data(), t.data()}, params);
  auto backend = createLocalBackend();
  ExecPlan plan = planExecution(*model.get(), 0);
  ArenaDevice device;
  Executor executor(*model.get(), plan, *backend, inputs, nullptr, {}, &device);
  std::string why;
  EXPECT_FALSE(executor.useGraphs(why));
  EXPECT_EQ(why, "the 'arena' device cannot capture graphs");
  device.graphs = true;
  ASSERT_TRUE(executor.useGraphs(why));
  executor.runStep();
  executor.runStep();
  EXPECT_EQ(device.begins, 2);
  EXPECT_EQ(device.ends, 2);
}

TEST(DeviceArenaTest, GraphsRefusedWhereTheStepWaitsOnTheHost) {
  // Rank 0 of a two-rank 1F1B pipeline sends and receives.
  TrainConfig config;
  config.schedule = "1f1b";
  config.stages = 2;
  TrainModel model(config);
  ExecPlan plan = planExecution(*model.get(), 0);
  std::vector<float> x = makeTrainInput(config.batch, config.features);
  std::vector<float> t = makeTrainTarget(config.batch, config.features);
  std::vector<std::vector<float>> params = makeTrainParameters(config);
  std::vector<void *> inputs = inputPointers({x.data(), t.data()}, params);
  // Only the inputs rank 0 reads.
  const pw_rank_program &rank = model.get()->ranks[0];
  std::vector<bool> read(inputs.size(), false);
  for (int k = 0; k < rank.num_stages; ++k) {
    const pw_stage &stage = model.get()->stages[rank.stages[k]];
    for (int a = 0; a < stage.num_args; ++a)
      if (stage.arg_source[a] != PW_FROM_PREVIOUS)
        read[stage.arg_index[a]] = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!read[i])
      inputs[i] = nullptr;
  auto backend = createLocalBackend();
  ArenaDevice device;
  device.graphs = true;
  Executor executor(*model.get(), plan, *backend, inputs, nullptr, {}, &device);
  std::string why;
  EXPECT_FALSE(executor.useGraphs(why));
  EXPECT_NE(why.find("rank 0's step sends, receives or all-reduces through "
                     "the backend, which waits on the host ('send act stage "
                     "0 mb 0 to rank 1')"),
            std::string::npos)
      << why;
}

TEST(DeviceSelectTest, CudaModelWithoutTheCudaRuntime) {
  TrainConfig config;
  TrainModel model(config);
  model.mutableModel()->device = PW_DEVICE_CUDA;
  unsetenv("PW_DEVICE");
  try {
    createDeviceForModel(*model.get(), 0);
    FAIL() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.exitCode, ExitUsage);
    EXPECT_STREQ(error.what(),
                 "this binary was compiled with --target cuda, but its "
                 "runtime was built without CUDA (no CUDA toolkit when "
                 "pipewave was configured): rebuild pipewave where CMake "
                 "finds the CUDA toolkit, or compile the model with "
                 "--target cpu");
  }
  setenv("PW_DEVICE", "host", 1);
  try {
    createDeviceForModel(*model.get(), 0);
    FAIL() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.exitCode, ExitUsage);
    EXPECT_STREQ(error.what(),
                 "PW_DEVICE='host': this binary was compiled with --target "
                 "cuda, its stage code runs on the 'cuda' device only");
  }
  // A CPU model keeps PW_DEVICE's choice.
  model.mutableModel()->device = PW_DEVICE_HOST;
  EXPECT_EQ(createDeviceForModel(*model.get(), 0)->name(), "host");
  unsetenv("PW_DEVICE");
}

TEST(DeviceSelectTest, UnknownDeviceKindIsABadModel) {
  TrainConfig config;
  TrainModel model(config);
  model.mutableModel()->device = 7;
  EXPECT_THROW(validateModel(*model.get()), Error);
}

TEST(DeviceSelectTest, LocalRankFromTheLauncher) {
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  unsetenv("LOCAL_RANK");
  EXPECT_EQ(localRankFromEnvironment(), 0);
  setenv("LOCAL_RANK", "3", 1);
  EXPECT_EQ(localRankFromEnvironment(), 3);
  // Open MPI's variable first.
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  EXPECT_EQ(localRankFromEnvironment(), 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x1", 1);
  try {
    localRankFromEnvironment();
    FAIL() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.exitCode, ExitUsage);
    EXPECT_STREQ(error.what(), "OMPI_COMM_WORLD_LOCAL_RANK='x1' is not a "
                               "local rank (a number >= 0)");
  }
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  unsetenv("LOCAL_RANK");
}
