//===- TrainingTest.cpp - Training steps on the local backend -------------===//
//
// Part of the pipewave project.
//
// The training test model (TestModel.h) on one rank: losses and gradients
// against the double-precision reference, gradient accumulation over
// microbatches, split I/W against B, and whole training runs.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/ModelCheck.h"

#include "TestModel.h"
#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <memory>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// A training run on the local backend: the model, its data (`batches`
/// global batches), parameters and the executor.
struct LocalRun {
  TrainModel model;
  std::vector<float> x, t;
  int batches;
  std::vector<std::vector<float>> params;
  std::unique_ptr<Backend> backend = createLocalBackend();
  ExecPlan plan;
  std::unique_ptr<Executor> executor;

  LocalRun(const TrainConfig &config, const OptimizerConfig &optimizer,
           int batches = 1, Device *device = nullptr)
      : model(config), batches(batches) {
    validateModel(*model.get());
    x = makeTrainInput(config.batch * batches, config.features);
    t = makeTrainTarget(config.batch * batches, config.features);
    params = makeTrainParameters(config);
    std::vector<void *> inputs = inputPointers({x.data(), t.data()}, params);
    plan = planExecution(*model.get(), 0);
    executor = std::make_unique<Executor>(*model.get(), plan, *backend, inputs,
                                          nullptr, optimizer, device);
  }

  /// Step k (1-based) reads global batch (k - 1) % batches.
  double step(int k) {
    size_t at = static_cast<size_t>((k - 1) % batches) * model.config().batch *
                model.config().features;
    executor->setInput(0, x.data() + at);
    executor->setInput(1, t.data() + at);
    executor->runStep();
    return executor->loss();
  }
};

OptimizerConfig frozen() {
  OptimizerConfig c;
  c.lr = 0;
  return c;
}

void expectNear(double got, double want, double tolerance,
                const std::string &what) {
  EXPECT_NEAR(got, want, tolerance * std::max(1.0, std::fabs(want))) << what;
}

/// Loss and every parameter gradient of one step against the reference.
void checkGradients(const TrainConfig &config) {
  SCOPED_TRACE("stages " + std::to_string(config.stages) + " mb " +
               std::to_string(config.microbatches) + " split " +
               std::to_string(config.split));
  LocalRun run(config, frozen());
  double loss = run.step(1);
  TrainGradients ref = referenceGradients(config, initialTrainState(config),
                                          run.x.data(), run.t.data());
  expectNear(loss, ref.loss, 1e-6, "loss");
  EXPECT_GT(ref.loss, 0.01);
  for (int layer = 0; layer < config.layers; ++layer) {
    const float *dw = run.executor->gradient(2 + 2 * layer);
    const float *db = run.executor->gradient(3 + 2 * layer);
    ASSERT_NE(dw, nullptr);
    ASSERT_NE(db, nullptr);
    for (int f = 0; f < config.features; ++f) {
      expectNear(dw[f], ref.dw[layer][f], 1e-6,
                 "dw" + std::to_string(layer) + "[" + std::to_string(f) + "]");
      expectNear(db[f], ref.db[layer][f], 1e-6,
                 "db" + std::to_string(layer) + "[" + std::to_string(f) + "]");
    }
  }
  // lr = 0: the parameters did not move.
  EXPECT_EQ(run.params[0], makeTrainWeight(0, config.features));
}

} // namespace

TEST(TrainingTest, ReferenceGradientsAgreeWithFiniteDifferences) {
  TrainConfig config;
  std::vector<float> x = makeTrainInput(config.batch, config.features);
  std::vector<float> t = makeTrainTarget(config.batch, config.features);
  TrainState state = initialTrainState(config);
  TrainGradients g = referenceGradients(config, state, x.data(), t.data());
  const double h = 1e-6;
  for (int layer : {0, 3})
    for (int f : {0, 5}) {
      TrainState plus = state, minus = state;
      plus.w[layer][f] += h;
      minus.w[layer][f] -= h;
      double numeric =
          (referenceGradients(config, plus, x.data(), t.data()).loss -
           referenceGradients(config, minus, x.data(), t.data()).loss) /
          (2 * h);
      EXPECT_NEAR(g.dw[layer][f], numeric, 1e-7) << layer << " " << f;
      plus = minus = state;
      plus.b[layer][f] += h;
      minus.b[layer][f] -= h;
      numeric = (referenceGradients(config, plus, x.data(), t.data()).loss -
                 referenceGradients(config, minus, x.data(), t.data()).loss) /
                (2 * h);
      EXPECT_NEAR(g.db[layer][f], numeric, 1e-7) << layer << " " << f;
    }
}

TEST(TrainingTest, LossAndGradientsMatchTheReference) {
  TrainConfig config;
  config.schedule = "local";
  // The split backward: its W takes the h's where I read them (passed
  // through), or copies that I returns (copyWStash).
  for (int stages : {1, 2, 4})
    for (int mb : {1, 4})
      for (int split : {0, 1, 2}) {
        config.stages = stages;
        config.microbatches = mb;
        config.split = split > 0;
        config.copyWStash = split == 2;
        checkGradients(config);
      }
}

TEST(TrainingTest, GradientsAccumulateOverMicrobatchesInActionOrder) {
  // One stage, 4 microbatches: the accumulator is, bit for bit, the sum of
  // the per-microbatch gradients in microbatch order.
  TrainConfig config;
  config.stages = 1;
  config.microbatches = 4;
  config.schedule = "local";
  LocalRun run(config, frozen());
  run.step(1);
  const pw_stage &stage = run.model.get()->stages[0];
  const int F = config.features, rows = config.batch / 4, K = config.layers;
  std::vector<float> acc(F, 0.0f);
  for (int m = 0; m < 4; ++m) {
    // Call the stage's functions directly on microbatch m.
    std::vector<void *> args(stage.num_args);
    args[0] = run.x.data() + m * rows * F;
    for (int a = 1; a < stage.num_args; ++a)
      args[a] = stage.arg_source[a] == PW_FROM_DATA
                    ? static_cast<void *>(run.t.data() + m * rows * F)
                    : run.params[stage.arg_index[a] - 2].data();
    std::vector<float> loss(1), y(rows * F), stash(K * rows * F);
    std::vector<int32_t> c(rows);
    std::vector<void *> results = {loss.data(), y.data(), c.data()};
    for (int j = 0; j < K; ++j)
      results.push_back(stash.data() + j * rows * F);
    stage.forward(args.data(), results.data());
    std::vector<float> one = {1.0f}, zeros(rows * F, 0.0f);
    std::vector<void *> bargs = args;
    for (int j = 0; j < K; ++j)
      bargs.push_back(stash.data() + j * rows * F);
    bargs.push_back(one.data());
    bargs.push_back(zeros.data());
    std::vector<std::vector<float>> grads(stage.num_grad_args,
                                          std::vector<float>(F));
    std::vector<void *> out;
    for (auto &g : grads)
      out.push_back(g.data());
    stage.backward(bargs.data(), out.data());
    for (int f = 0; f < F; ++f)
      acc[f] += grads[0][f]; // dw0
  }
  const float *dw0 = run.executor->gradient(2);
  for (int f = 0; f < F; ++f)
    EXPECT_EQ(dw0[f], acc[f]) << f;

  // The same gradient as one microbatch of the whole batch, to rounding.
  config.microbatches = 1;
  LocalRun whole(config, frozen());
  whole.step(1);
  for (int f = 0; f < F; ++f)
    expectNear(whole.executor->gradient(2)[f], dw0[f], 1e-6, "dw0");
}

TEST(TrainingTest, EveryStepStartsItsAccumulatorsAfresh) {
  // Frozen parameters and the same batch every step: each step's gradients
  // are the first step's, bit for bit (the step's first B or W writes each
  // accumulator, the others add to it; nothing of a step stays).
  TrainConfig config;
  config.schedule = "local";
  for (int mb : {1, 4})
    for (bool split : {false, true}) {
      config.microbatches = mb;
      config.split = split;
      SCOPED_TRACE("mb " + std::to_string(mb) + " split " +
                   std::to_string(split));
      LocalRun run(config, frozen());
      double first = run.step(1);
      std::vector<std::vector<float>> grads;
      for (int input = 2; input < 2 + 2 * config.layers; ++input)
        grads.emplace_back(run.executor->gradient(input),
                           run.executor->gradient(input) + config.features);
      for (int k = 2; k <= 3; ++k) {
        EXPECT_EQ(run.step(k), first) << k;
        for (int input = 2; input < 2 + 2 * config.layers; ++input)
          EXPECT_EQ(std::vector<float>(run.executor->gradient(input),
                                       run.executor->gradient(input) +
                                           config.features),
                    grads[input - 2])
              << "step " << k << " input " << input;
      }
    }
}

TEST(TrainingTest, AccumulatingVariantsAddAfterTheFirstMicrobatch) {
  // The accumulating B and W (model.h) add the weight gradients to the
  // accumulators themselves for every microbatch of a step but its first;
  // the runtime adds the biases'. Same gradients and losses, bit for bit.
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  adam.lr = 0.01;
  for (int mb : {1, 4})
    for (bool split : {false, true}) {
      SCOPED_TRACE("mb " + std::to_string(mb) + " split " +
                   std::to_string(split));
      TrainConfig config;
      config.schedule = "local";
      config.microbatches = mb;
      config.split = split;
      LocalRun plain(config, adam, 2);
      config.accumulating = true;
      LocalRun adding(config, adam, 2);
      int before = accumulatingCalls();
      for (int k = 1; k <= 3; ++k) {
        EXPECT_EQ(plain.step(k), adding.step(k)) << k;
        for (int input = 2; input < 2 + 2 * config.layers; ++input)
          EXPECT_EQ(std::vector<float>(plain.executor->gradient(input),
                                       plain.executor->gradient(input) +
                                           config.features),
                    std::vector<float>(adding.executor->gradient(input),
                                       adding.executor->gradient(input) +
                                           config.features))
              << "step " << k << " input " << input;
      }
      EXPECT_EQ(plain.params, adding.params);
      // Per step, every stage's B (or W) but its first: (mb - 1) x stages.
      EXPECT_EQ(accumulatingCalls() - before, 3 * (mb - 1) * config.stages);
    }
}

TEST(TrainingTest, SplitBackwardIsBitIdenticalToWholeBackward) {
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  adam.lr = 0.01;
  TrainConfig config;
  config.schedule = "local";
  config.stages = 2;
  LocalRun whole(config, adam, 2);
  config.split = true;
  config.noWholeBackward = true;
  LocalRun split(config, adam, 2);
  for (int k = 1; k <= 3; ++k)
    EXPECT_EQ(whole.step(k), split.step(k)) << k;
  EXPECT_EQ(whole.params, split.params);
}

TEST(TrainingTest, TrainingMatchesTheSerialReference) {
  struct Case {
    OptimizerKind kind;
    double lr, momentum;
  };
  for (Case c :
       {Case{OptimizerKind::SGD, 0.5, 0.9}, Case{OptimizerKind::Adam, 0.05, 0},
        Case{OptimizerKind::AdamW, 0.05, 0}}) {
    OptimizerConfig optimizer;
    optimizer.kind = c.kind;
    optimizer.lr = c.lr;
    optimizer.momentum = c.momentum;
    optimizer.weightDecay = defaultWeightDecay(c.kind);
    SCOPED_TRACE(describeOptimizer(optimizer));
    TrainConfig config;
    config.schedule = "local";
    config.stages = 2;
    config.microbatches = 4;
    LocalRun run(config, optimizer, 2);
    TrainState state = initialTrainState(config);
    std::vector<double> losses =
        referenceTraining(config, optimizer, run.x, run.t, 2, 6, state);
    for (int k = 1; k <= 6; ++k)
      expectNear(run.step(k), losses[k - 1], 1e-5,
                 "loss of step " + std::to_string(k));
    EXPECT_LT(losses[5], losses[0]); // it learns
    for (int layer = 0; layer < config.layers; ++layer)
      for (int f = 0; f < config.features; ++f) {
        expectNear(run.params[2 * layer][f], state.w[layer][f], 1e-5, "w");
        expectNear(run.params[2 * layer + 1][f], state.b[layer][f], 1e-5, "b");
      }
    EXPECT_EQ(run.executor->optimizerSteps(0), 6);
  }
}

// SGD updates run in the backward (model.h's pw_fused_update): the same
// parameters and losses as the optimizer's pass, bit for bit. Where the
// update's grad_dead lets the backward leave a weight's gradient unwritten,
// gradient() refuses it, naming why; keepGradients() keeps every gradient.
TEST(TrainingTest, FusedUpdatesLeaveGradientsOnlyWhereAllowed) {
  OptimizerConfig sgd;
  sgd.lr = 0.2;
  sgd.momentum = 0.9;
  TrainConfig config;
  config.schedule = "local";
  config.stages = 1;
  config.microbatches = 1;
  LocalRun plain(config, sgd);
  config.fusedUpdates = true;
  LocalRun fused(config, sgd), kept(config, sgd);
  kept.executor->keepGradients(true);
  for (int k = 1; k <= 3; ++k) {
    double loss = plain.step(k);
    EXPECT_EQ(fused.step(k), loss) << "step " << k;
    EXPECT_EQ(kept.step(k), loss) << "step " << k;
  }
  EXPECT_EQ(fused.params, plain.params);
  EXPECT_EQ(kept.params, plain.params);
  // The weights' updates ran in the backward; the biases' in the optimizer.
  size_t layers = static_cast<size_t>(config.layers);
  EXPECT_EQ(fused.executor->fusedUpdatesLastStep(), layers);
  EXPECT_EQ(fused.executor->gradientsLeftLastStep(), layers);
  EXPECT_EQ(kept.executor->fusedUpdatesLastStep(), layers);
  EXPECT_EQ(kept.executor->gradientsLeftLastStep(), 0u);
  EXPECT_EQ(plain.executor->fusedUpdatesLastStep(), 0u);
  for (int layer = 0; layer < config.layers; ++layer) {
    int w = 2 + 2 * layer, b = w + 1;
    try {
      fused.executor->gradient(w);
      ADD_FAILURE() << "gradient(" << w << ") read a gradient never written";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("was not kept"), std::string::npos)
          << e.what();
    }
    for (int input : {w, b})
      EXPECT_TRUE(std::equal(kept.executor->gradient(input),
                             kept.executor->gradient(input) + config.features,
                             plain.executor->gradient(input)))
          << "input " << input;
    EXPECT_TRUE(std::equal(fused.executor->gradient(b),
                           fused.executor->gradient(b) + config.features,
                           plain.executor->gradient(b)));
  }
}

TEST(TrainingTest, PlanHasStashAndGradientPools) {
  TrainConfig config;
  config.stages = 4;
  config.microbatches = 8;
  config.schedule = "zb-h1";
  TrainModel model(config);
  ASSERT_NO_THROW(validateModel(*model.get()));
  ExecPlan plan = planExecution(*model.get(), 1);
  std::string text = describeExecPlan(plan);
  // Rank 1 of ZB-H1 (S = 4): stashes live from F to I, weight stashes from
  // I to W; every pool fits the in-flight microbatches.
  EXPECT_NE(text.find("pool stash s1: 8 buffers"), std::string::npos) << text;
  EXPECT_NE(text.find("pool wstash s1: 8 buffers"), std::string::npos) << text;
  EXPECT_NE(text.find("pool grad s0 (sent): 8 buffers"), std::string::npos)
      << text;
  EXPECT_NE(text.find("pool grad s1 (received): 8 buffers"), std::string::npos)
      << text;
  for (const ExecPool &pool : plan.pools)
    EXPECT_LE(pool.peak, 4) << text;
}

TEST(TrainingTest, PlannerRejectsIncompleteTrainingPrograms) {
  TrainConfig config;
  config.schedule = "local";
  config.stages = 1;
  config.microbatches = 2;
  TrainModel model(config);
  // Drop B(0, 1): turn it into a second optimizer step.
  auto *actions = const_cast<pw_action *>(model.get()->ranks[0].actions);
  for (int i = 0; i < model.get()->ranks[0].num_actions; ++i)
    if (actions[i].kind == PW_ACT_BACKWARD && actions[i].microbatch == 1) {
      actions[i].kind = PW_ACT_OPTIMIZER;
      actions[i].microbatch = -1;
    }
  std::string error = PW_ERROR_OF(planExecution(*model.get(), 0));
  EXPECT_NE(error.find("stage 0 mb 1 has the compute actions [F]; a training "
                       "step needs F then B, or F then I then W"),
            std::string::npos)
      << error;
}

namespace {

/// A local run of the 2-stage model whose second global batch holds a NaN,
/// with SGD and momentum (state that a dropped step must not touch).
struct PoisonedRun : LocalRun {
  explicit PoisonedRun(NonfinitePolicy policy, Device *device = nullptr)
      : LocalRun(config(), sgd(), 2, device) {
    x[static_cast<size_t>(model.config().batch * model.config().features) + 3] =
        std::nanf("");
    executor->setNonfinitePolicy(policy);
  }
  static TrainConfig config() {
    TrainConfig c;
    c.schedule = "local";
    return c;
  }
  static OptimizerConfig sgd() {
    OptimizerConfig o;
    o.lr = 0.1;
    o.momentum = 0.9;
    return o;
  }
};

bool allFinite(const std::vector<std::vector<float>> &params) {
  for (const std::vector<float> &p : params)
    for (float v : p)
      if (!std::isfinite(v))
        return false;
  return true;
}

} // namespace

// On the host the updates run in their places, checking the gradients they
// read, and the check reports after them (the driver then saves nothing).
TEST(TrainingTest, NonfiniteGradientsStopTheStepAfterCheckedUpdates) {
  PoisonedRun run(NonfinitePolicy::Stop);
  run.step(1);
  EXPECT_FALSE(run.executor->lastStepNonfinite());
  EXPECT_TRUE(allFinite(run.params));
  EXPECT_EQ(run.executor->nonfiniteFinding(), "");
  run.step(2);
  EXPECT_TRUE(run.executor->lastStepNonfinite());
  EXPECT_TRUE(run.executor->updatesBeforeCheck());
  // The first parameter of the first stage with a NaN gradient.
  EXPECT_EQ(run.executor->nonfiniteFinding(),
            "the gradient of parameter 'w0' (stage 0)");
  EXPECT_FALSE(allFinite(run.params)); // the updates ran
  EXPECT_EQ(run.executor->optimizerSteps(0), 2);
  EXPECT_EQ(run.executor->optimizerSteps(1), 2);
}

// A device whose updates do not check (here the asynchronous test device):
// the ranks scan the gradients and agree before any update.
TEST(TrainingTest, NonfiniteGradientsStopTheStepBeforeItsUpdates) {
  std::unique_ptr<Device> device = createAsyncTestDevice();
  PoisonedRun run(NonfinitePolicy::Stop, device.get());
  run.step(1);
  EXPECT_FALSE(run.executor->lastStepNonfinite());
  EXPECT_EQ(run.executor->nonfiniteFinding(), "");
  run.executor->downloadParameters();
  std::vector<std::vector<float>> before = run.params;
  run.step(2);
  EXPECT_TRUE(run.executor->lastStepNonfinite());
  EXPECT_FALSE(run.executor->updatesBeforeCheck());
  EXPECT_EQ(run.executor->nonfiniteFinding(),
            "the gradient of parameter 'w0' (stage 0)");
  run.executor->downloadParameters();
  EXPECT_EQ(run.params, before); // bit for bit: no update ran
  EXPECT_EQ(run.executor->optimizerSteps(0), 1);
  EXPECT_EQ(run.executor->optimizerSteps(1), 1);
}

TEST(TrainingTest, SkippedStepLeavesNoTrace) {
  // Batches b0, NaN, b0: with the middle step dropped, the parameters and
  // the momentum equal two clean steps on b0, bit for bit.
  PoisonedRun run(NonfinitePolicy::Skip);
  LocalRun clean(PoisonedRun::config(), PoisonedRun::sgd(), 1);
  ASSERT_TRUE(std::equal(clean.x.begin(), clean.x.end(), run.x.begin()));
  run.step(1);
  run.step(2);
  EXPECT_TRUE(run.executor->lastStepNonfinite());
  run.step(3);
  EXPECT_FALSE(run.executor->lastStepNonfinite());
  clean.step(1);
  clean.step(2);
  EXPECT_EQ(run.params, clean.params);
  EXPECT_EQ(run.executor->optimizerSteps(0), 2);
  EXPECT_TRUE(allFinite(run.params));
}

TEST(TrainingTest, WithoutTheCheckANaNReachesTheParameters) {
  PoisonedRun run(NonfinitePolicy::Off);
  run.step(1);
  run.step(2);
  EXPECT_FALSE(run.executor->lastStepNonfinite());
  EXPECT_FALSE(allFinite(run.params));
}
