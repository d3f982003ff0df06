//===- AsyncExecutorTest.cpp - The executor on the async test device ------===//
//
// Part of the pipewave project.
//
// The executor's ordering without a GPU: the same models and programs on
// the host device and on the asynchronous test device give the same
// outputs, losses, gradients, parameters and optimizer state, bit for bit;
// and dropping one kind of synchronisation (a device wrapper that forgets
// it, with slow copies so the race is always lost) makes them differ. The
// multi-rank schedules run the same comparison through MPI (ctest
// runtime.train.async.*).
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Trace.h"

#include "TestModel.h"
#include "TestUtil.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <regex>
#include <thread>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// The model's default two stages, both on one rank (the "local" schedule
/// the executor tests drive).
TrainConfig everyStageOnOneRank() {
  TrainConfig config;
  config.schedule = "local";
  return config;
}

/// Which synchronisation a FaultyDevice forgets.
struct Faults {
  /// Every copy starts 30 ms late (so an unordered reader loses the race).
  bool slowCopies = false;
  /// wait(stream, event) does nothing.
  bool dropStreamWaits = false;
  /// synchronize(event) and synchronize() return at once.
  bool dropHostWaits = false;
  /// Every stage function starts 30 ms late.
  bool slowCalls = false;
};

void sleep30ms(void *const *, void *const *) {
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
}

/// An asynchronous test device with faults injected.
class FaultyDevice final : public Device {
public:
  explicit FaultyDevice(Faults faults)
      : inner(createAsyncTestDevice()), faults(faults) {}
  ~FaultyDevice() override {
    try {
      inner->synchronize();
    } catch (const Error &) {
    }
  }

  std::string name() const override { return "faulty"; }
  bool sharesHostMemory() const override { return false; }
  void *allocate(size_t bytes) override { return inner->allocate(bytes); }
  void deallocate(void *ptr) override {
    // The executor frees its memory on destruction, before its host buffers
    // go: let the work that was not waited for finish first.
    inner->synchronize();
    inner->deallocate(ptr);
  }
  StreamId createStream() override { return inner->createStream(); }
  EventId createEvent() override { return inner->createEvent(); }
  void record(EventId event, StreamId stream) override {
    inner->record(event, stream);
  }
  void wait(StreamId stream, EventId event) override {
    if (!faults.dropStreamWaits)
      inner->wait(stream, event);
  }
  void synchronize(EventId event) override {
    if (!faults.dropHostWaits)
      inner->synchronize(event);
  }
  void synchronize() override {
    if (!faults.dropHostWaits)
      inner->synchronize();
  }
  void fill(StreamId stream, void *dst, unsigned char byte,
            size_t bytes) override {
    inner->fill(stream, dst, byte, bytes);
  }
  void copy(StreamId stream, void *dst, const void *src, size_t bytes,
            CopyKind kind) override {
    if (faults.slowCopies)
      inner->call(stream, sleep30ms, {}, {});
    inner->copy(stream, dst, src, bytes, kind);
  }
  void accumulate(StreamId stream, int32_t dtype, void *dst, const void *src,
                  size_t count) override {
    inner->accumulate(stream, dtype, dst, src, count);
  }
  void optimizerUpdate(StreamId stream, const OptimizerConfig &config,
                       int64_t step, float *param, const float *grad,
                       const std::vector<float *> &state,
                       size_t count) override {
    inner->optimizerUpdate(stream, config, step, param, grad, state, count);
  }
  void call(StreamId stream, pw_stage_fn fn, const std::vector<void *> &args,
            const std::vector<void *> &results) override {
    if (faults.slowCalls)
      inner->call(stream, sleep30ms, {}, {});
    inner->call(stream, fn, args, results);
  }

private:
  std::unique_ptr<Device> inner;
  Faults faults;
};

/// The training test model on one rank and `device`.
struct TrainRun {
  TrainModel model;
  std::vector<float> x, t;
  std::vector<std::vector<float>> params;
  std::unique_ptr<Backend> backend = createLocalBackend();
  ExecPlan plan;
  std::unique_ptr<Executor> executor;

  TrainRun(const TrainConfig &config, const OptimizerConfig &optimizer,
           Device *device, Trace *trace = nullptr)
      : model(config) {
    validateModel(*model.get());
    x = makeTrainInput(config.batch * 2, config.features);
    t = makeTrainTarget(config.batch * 2, config.features);
    params = makeTrainParameters(config);
    std::vector<void *> inputs = inputPointers({x.data(), t.data()}, params);
    plan = planExecution(*model.get(), 0);
    executor = std::make_unique<Executor>(*model.get(), plan, *backend, inputs,
                                          trace, optimizer, device);
  }

  /// Step k (1-based) reads global batch (k - 1) % 2; with `prefetch`,
  /// step k + 1's batch is announced before it runs.
  double step(int k, bool prefetch = false) {
    executor->setInput(0, batch(x, k));
    executor->setInput(1, batch(t, k));
    if (prefetch) {
      executor->prefetchInput(0, batch(x, k + 1));
      executor->prefetchInput(1, batch(t, k + 1));
    }
    executor->runStep();
    return executor->loss();
  }

  const float *batch(const std::vector<float> &data, int k) const {
    return data.data() + static_cast<size_t>((k - 1) % 2) *
                             model.config().batch * model.config().features;
  }
};

OptimizerConfig adam() {
  OptimizerConfig c;
  c.kind = OptimizerKind::Adam;
  c.lr = 0.05;
  return c;
}

/// The losses of `steps` steps on the host device and on `device`, and
/// whether the final parameters, gradients and state are bit-identical.
struct Comparison {
  std::vector<double> host, other;
  bool sameState = true;
};

Comparison compare(const TrainConfig &config, Device &device, int steps = 3,
                   bool checkState = true, bool prefetch = false) {
  Comparison result;
  TrainRun host(config, adam(), nullptr);
  for (int k = 1; k <= steps; ++k)
    result.host.push_back(host.step(k, prefetch));
  TrainRun run(config, adam(), &device);
  for (int k = 1; k <= steps; ++k)
    result.other.push_back(run.step(k, prefetch && k < steps));
  if (!checkState)
    return result;
  run.executor->downloadParameters();
  result.sameState &= run.params == host.params;
  for (const TrainedParameter &p : host.executor->trainedParameters()) {
    const float *a = host.executor->gradient(p.input);
    const float *b = run.executor->gradient(p.input);
    result.sameState &= std::memcmp(a, b, p.count * sizeof(float)) == 0;
    for (size_t k = 0; k < 2; ++k) {
      HostTensor sa = host.executor->optimizerState(p.input, k);
      HostTensor sb = run.executor->optimizerState(p.input, k);
      result.sameState &= std::memcmp(sa.data(), sb.data(), sa.bytes()) == 0;
    }
  }
  return result;
}

} // namespace

TEST(AsyncExecutorTest, TrainingIsBitIdenticalToTheHostDevice) {
  TrainConfig config = everyStageOnOneRank();
  for (int stages : {1, 2, 4})
    for (int mb : {1, 4})
      for (bool split : {false, true}) {
        SCOPED_TRACE("stages " + std::to_string(stages) + " mb " +
                     std::to_string(mb) + " split " + std::to_string(split));
        config.stages = stages;
        config.microbatches = mb;
        config.split = split;
        auto device = createAsyncTestDevice();
        Comparison c = compare(config, *device);
        EXPECT_EQ(c.host, c.other);
        EXPECT_TRUE(c.sameState);
      }
}

TEST(AsyncExecutorTest, InferenceOutputsAreBitIdenticalToTheReference) {
  ModelConfig config;
  config.stages = 3;
  config.ranks = 1;
  config.microbatches = 4;
  config.placement = Placement::Contiguous;
  ArithmeticModel model(config);
  ASSERT_NO_THROW(validateModel(*model.get()));
  std::vector<float> x = makeInput(config.batch, config.features);
  std::vector<std::vector<float>> params = makeParameters(config);
  std::vector<void *> inputs = inputPointers({x.data()}, params);
  auto backend = createLocalBackend();
  auto device = createAsyncTestDevice();
  ExecPlan plan = planExecution(*model.get(), 0);
  Executor executor(*model.get(), plan, *backend, inputs, nullptr, {},
                    device.get());
  Reference ref = computeReference(config, x, params);
  for (int step = 0; step < 2; ++step) {
    executor.runStep();
    const auto *y = static_cast<const float *>(executor.outputs()[0].data());
    for (size_t i = 0; i < ref.y.size(); ++i)
      ASSERT_EQ(y[i], ref.y[i]) << i;
    EXPECT_EQ(*static_cast<const float *>(executor.outputs()[2].data()),
              ref.total);
  }
}

TEST(AsyncExecutorTest, OptimizerStateRoundTripsThroughTheDevice) {
  TrainConfig config = everyStageOnOneRank();
  auto device = createAsyncTestDevice();
  TrainRun run(config, adam(), device.get());
  run.step(1);
  HostTensor m = run.executor->optimizerState(2, 0);
  EXPECT_NE(static_cast<const float *>(m.data())[0], 0.0f);
  std::vector<float> values(m.size(), 0.25f);
  run.executor->setOptimizerState(2, 0, values.data());
  HostTensor back = run.executor->optimizerState(2, 0);
  EXPECT_EQ(static_cast<const float *>(back.data())[3], 0.25f);
  // The caller's parameters move only when downloaded.
  std::vector<float> before = run.params[0];
  EXPECT_EQ(before, makeTrainWeight(0, config.features));
  run.executor->downloadParameters();
  EXPECT_NE(run.params[0], before);
}

TEST(AsyncExecutorTest, SlowCopiesStillGiveTheSameNumbers) {
  TrainConfig config = everyStageOnOneRank();
  FaultyDevice device(Faults{true, false, false});
  Comparison c = compare(config, device, 2);
  EXPECT_EQ(c.host, c.other);
  EXPECT_TRUE(c.sameState);
}

TEST(AsyncExecutorTest, AMissingStreamWaitChangesTheNumbers) {
  // The compute stream no longer waits for the data inputs' copy.
  TrainConfig config = everyStageOnOneRank();
  FaultyDevice device(Faults{true, true, false});
  Comparison c = compare(config, device, 2);
  EXPECT_NE(c.host, c.other);
}

TEST(AsyncExecutorTest, AMissingHostWaitChangesTheNumbers) {
  // runStep() returns before the outputs are copied back.
  TrainConfig config = everyStageOnOneRank();
  FaultyDevice device(Faults{true, false, true});
  Comparison c = compare(config, device, 2, /*checkState=*/false);
  EXPECT_NE(c.host, c.other);
}

TEST(AsyncExecutorTest, TracedSlicesLastUntilTheDeviceIsDone) {
  // Every stage function runs 30 ms after it is issued: a compute slice
  // that measured only the issuing would be far shorter.
  TrainConfig config = everyStageOnOneRank();
  FaultyDevice device(Faults{false, false, false, true});
  Trace trace;
  trace.start(0);
  TrainRun run(config, adam(), &device, &trace);
  run.step(1);
  std::string json = trace.eventsJson(0);
  std::regex slice("\"name\":\"([^\"]*)\",\"cat\":\"compute\"[^}]*"
                   "\"dur\":([0-9.e+-]+)");
  int slices = 0;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), slice);
       it != std::sregex_iterator(); ++it, ++slices)
    EXPECT_GE(std::stod((*it)[2].str()), 30000.0) << (*it)[1].str();
  EXPECT_EQ(slices, 2 * 2 * config.microbatches) << json;
}

TEST(AsyncExecutorTest, PrefetchedBatchesGiveTheSameNumbers) {
  // Every copy starts 30 ms late: a step that read its prefetched batch
  // before the copy landed would see poison.
  TrainConfig config = everyStageOnOneRank();
  FaultyDevice device(Faults{true, false, false});
  Comparison c = compare(config, device, 3, true, /*prefetch=*/true);
  EXPECT_EQ(c.host, c.other);
  EXPECT_TRUE(c.sameState);
}

TEST(AsyncExecutorTest, APrefetchedStepUploadsNothingAtItsStart) {
  TrainConfig config = everyStageOnOneRank();
  auto device = createAsyncTestDevice();
  Trace trace;
  trace.start(0);
  TrainRun run(config, adam(), device.get(), &trace);
  run.step(1, /*prefetch=*/true);
  run.step(2);
  // Announced, then replaced by another batch: uploaded at its start.
  run.executor->prefetchInput(0, run.batch(run.x, 1));
  run.executor->prefetchInput(1, run.batch(run.t, 1));
  run.step(4);
  std::string json = trace.eventsJson(0);
  std::regex upload("\"name\":\"upload inputs\"[^}]*\"args\":\\{"
                    "\"step\":([0-9]+)");
  std::vector<int> steps;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), upload);
       it != std::sregex_iterator(); ++it)
    steps.push_back(std::stoi((*it)[1].str()));
  EXPECT_EQ(steps, (std::vector<int>{1, 3})) << json;
}
