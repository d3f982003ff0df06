//===- OptimizerTest.cpp - SGD, Adam and AdamW against references ---------===//
//
// Part of the pipewave project.
//
// References: hand-computed numbers, and referenceUpdate() (TrainModel.cpp):
// double-precision code written from the torch.optim.SGD/Adam/AdamW
// documentation's formulas.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Optimizer.h"
#include "pipewave-runtime/OptimizerMath.h"

#include "TestModel.h"
#include "TestUtil.h"

#include <cmath>
#include <limits>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// Three steps on a 5-element tensor with a different gradient each step;
/// every value within `tolerance` (relative, at least absolute) of the
/// double reference.
void checkThreeSteps(const OptimizerConfig &config, double tolerance) {
  const std::vector<float> start = {1.0f, -0.5f, 0.25f, 2.0f, -3.0f};
  const std::vector<std::vector<float>> grads = {
      {0.5f, -0.25f, 1.5f, 0.0f, -2.0f},
      {0.4f, 0.125f, -1.0f, 0.75f, -1.5f},
      {-0.3f, 0.5f, 0.5f, 0.25f, 1.0f}};
  std::vector<float> p = start;
  std::vector<std::vector<float>> state(optimizerStateNames(config).size(),
                                        std::vector<float>(p.size(), 0.0f));
  std::vector<float *> statePointers;
  for (auto &s : state)
    statePointers.push_back(s.data());
  std::vector<double> ref(start.begin(), start.end());
  std::vector<double> m(p.size(), 0), v(p.size(), 0);
  for (int step = 1; step <= 3; ++step) {
    std::vector<float> g = grads[step - 1];
    optimizerUpdate(config, step, p.data(), g.data(), statePointers.data(),
                    p.size());
    EXPECT_EQ(g, grads[step - 1]) << "the gradient must not be modified";
    std::vector<double> gd(g.begin(), g.end());
    referenceUpdate(config, step, ref, gd, m, v);
    for (size_t i = 0; i < p.size(); ++i)
      EXPECT_NEAR(p[i], ref[i], tolerance * std::max(1.0, std::fabs(ref[i])))
          << describeOptimizer(config) << " step " << step << " [" << i << "]";
  }
}

} // namespace

TEST(OptimizerTest, PlainSgdByHand) {
  OptimizerConfig c;
  c.lr = 0.1;
  float p[2] = {1.0f, -2.0f};
  const float g[2] = {0.5f, 0.25f};
  optimizerUpdate(c, 1, p, g, nullptr, 2);
  EXPECT_FLOAT_EQ(p[0], 0.95f);
  EXPECT_FLOAT_EQ(p[1], -2.025f);
  optimizerUpdate(c, 2, p, g, nullptr, 2);
  EXPECT_FLOAT_EQ(p[0], 0.9f);
}

TEST(OptimizerTest, SgdMomentumByHand) {
  // buf1 = g1 = 1; p1 = 1 - 0.1 * 1 = 0.9
  // buf2 = 0.9 * 1 + 2 = 2.9; p2 = 0.9 - 0.29 = 0.61
  // buf3 = 0.9 * 2.9 + 0 = 2.61; p3 = 0.61 - 0.261 = 0.349
  OptimizerConfig c;
  c.lr = 0.1;
  c.momentum = 0.9;
  float p = 1.0f, buf = 0.0f;
  float *state[] = {&buf};
  const float g[3] = {1.0f, 2.0f, 0.0f};
  const float expectP[3] = {0.9f, 0.61f, 0.349f};
  const float expectBuf[3] = {1.0f, 2.9f, 2.61f};
  for (int step = 1; step <= 3; ++step) {
    optimizerUpdate(c, step, &p, &g[step - 1], state, 1);
    EXPECT_NEAR(p, expectP[step - 1], 1e-6) << step;
    EXPECT_NEAR(buf, expectBuf[step - 1], 1e-6) << step;
  }
}

TEST(OptimizerTest, AdamFirstStepMovesByTheLearningRate) {
  // With bias correction, m^ = g and v^ = g^2 at step 1: p -= lr * g /
  // (|g| + eps), about lr * sign(g).
  OptimizerConfig c;
  c.kind = OptimizerKind::Adam;
  c.lr = 0.001;
  float p[2] = {1.0f, 1.0f};
  const float g[2] = {0.5f, -4.0f};
  std::vector<float> m(2, 0), v(2, 0);
  float *state[] = {m.data(), v.data()};
  optimizerUpdate(c, 1, p, g, state, 2);
  EXPECT_NEAR(p[0], 0.999f, 1e-7);
  EXPECT_NEAR(p[1], 1.001f, 1e-7);
  EXPECT_NEAR(m[0], 0.05f, 1e-8);  // (1 - 0.9) * 0.5
  EXPECT_NEAR(v[1], 0.016f, 1e-9); // (1 - 0.999) * 16

  // AdamW decays first: p = 1 * (1 - lr * 0.01) - lr.
  c.kind = OptimizerKind::AdamW;
  c.weightDecay = defaultWeightDecay(OptimizerKind::AdamW);
  EXPECT_EQ(c.weightDecay, 0.01);
  float q = 1.0f, m1 = 0, v1 = 0;
  float *state1[] = {&m1, &v1};
  optimizerUpdate(c, 1, &q, &g[0], state1, 1);
  EXPECT_NEAR(q, 1.0 - 1e-5 - 0.001, 1e-7);
}

TEST(OptimizerTest, SgdMatchesTheReference) {
  OptimizerConfig c;
  c.lr = 0.05;
  checkThreeSteps(c, 1e-6);
  c.momentum = 0.9;
  checkThreeSteps(c, 1e-6);
  c.weightDecay = 0.1;
  checkThreeSteps(c, 1e-6);
  c.dampening = 0.25;
  checkThreeSteps(c, 1e-6);
  c.dampening = 0;
  c.nesterov = true;
  checkThreeSteps(c, 1e-6);
}

TEST(OptimizerTest, AdamMatchesTheReference) {
  OptimizerConfig c;
  c.kind = OptimizerKind::Adam;
  c.lr = 0.01;
  checkThreeSteps(c, 1e-6);
  c.weightDecay = 0.1;
  checkThreeSteps(c, 1e-6);
  c.beta1 = 0.3; // lerp's other branch (weight >= 0.5)
  c.beta2 = 0.9;
  c.eps = 1e-3;
  checkThreeSteps(c, 1e-6);
}

TEST(OptimizerTest, AdamWMatchesTheReference) {
  OptimizerConfig c;
  c.kind = OptimizerKind::AdamW;
  c.lr = 0.01;
  c.weightDecay = 0.01;
  checkThreeSteps(c, 1e-6);
  c.weightDecay = 0.5;
  checkThreeSteps(c, 1e-6);
}

TEST(OptimizerTest, NamesAndDescriptions) {
  OptimizerConfig c;
  EXPECT_TRUE(optimizerStateNames(c).empty());
  c.momentum = 0.9;
  EXPECT_EQ(optimizerStateNames(c),
            std::vector<std::string>{"momentum_buffer"});
  EXPECT_EQ(describeOptimizer(c),
            "sgd lr=0.01 momentum=0.90000000000000002 dampening=0 nesterov=0 "
            "weight_decay=0");
  OptimizerKind kind;
  ASSERT_TRUE(parseOptimizerKind("adamw", kind));
  EXPECT_EQ(kind, OptimizerKind::AdamW);
  EXPECT_FALSE(parseOptimizerKind("lamb", kind));
  c.kind = OptimizerKind::Adam;
  EXPECT_EQ(optimizerStateNames(c),
            (std::vector<std::string>{"exp_avg", "exp_avg_sq"}));
}

// The update tells whether every gradient it read was finite, for each
// optimizer, wherever the one bad value sits in a vectorised loop (its
// first, middle and tail elements), and updates as it would otherwise.
TEST(OptimizerTest, UpdateReportsNonfiniteGradients) {
  OptimizerConfig sgd, momentum, adam;
  momentum.momentum = 0.9;
  adam.kind = OptimizerKind::Adam;
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  const size_t count = 1000;
  for (const OptimizerConfig &config : {sgd, momentum, adam}) {
    std::vector<float> g(count);
    for (size_t i = 0; i < count; ++i)
      g[i] = std::ldexp(static_cast<float>(i % 7) - 3.0f, 100) *
             (i % 2 ? 1.0f : -1.0f);
    size_t states = optimizerStateNames(config).size();
    auto run = [&](const std::vector<float> &grad, std::vector<float> &p) {
      p.assign(count, 0.5f);
      std::vector<std::vector<float>> state(states,
                                            std::vector<float>(count, 0.0f));
      std::vector<float *> pointers;
      for (auto &s : state)
        pointers.push_back(s.data());
      return optimizerUpdate(config, 1, p.data(), grad.data(), pointers.data(),
                             count);
    };
    std::vector<float> good, p;
    // Large but finite gradients are finite.
    EXPECT_TRUE(run(g, good)) << describeOptimizer(config);
    for (float value : bad)
      for (size_t at : {size_t{0}, size_t{15}, size_t{500}, count - 1}) {
        std::vector<float> grad = g;
        grad[at] = value;
        EXPECT_FALSE(run(grad, p))
            << describeOptimizer(config) << ": " << value << " at " << at;
        for (size_t i = 0; i < count; ++i)
          if (i != at && config.kind == OptimizerKind::SGD) {
            ASSERT_EQ(p[i], good[i]) << describeOptimizer(config) << " " << i;
          }
      }
  }
}

// The update walks its arrays in chunks (prefetching ahead); every element
// of a tensor spanning many chunks, and a partial last one, gets the same
// bits as the element formula applied on its own.
TEST(OptimizerTest, ChunkedUpdateMatchesTheElementFormula) {
  OptimizerConfig config;
  config.lr = 0.05;
  config.momentum = 0.9;
  config.weightDecay = 0.01;
  const size_t count = 3001;
  std::vector<float> p(count), g(count), buf(count, 0.0f);
  for (size_t i = 0; i < count; ++i) {
    p[i] = std::sin(static_cast<float>(i));
    g[i] = std::cos(static_cast<float>(3 * i));
  }
  std::vector<float> want = p, wantBuf = buf;
  float *state[] = {buf.data()};
  for (int step = 1; step <= 2; ++step) {
    SgdScalars s = sgdScalars(config, step);
    for (size_t i = 0; i < count; ++i)
      want[i] = sgdElement(s, want[i], g[i], &wantBuf[i]);
    ASSERT_TRUE(
        optimizerUpdate(config, step, p.data(), g.data(), state, count));
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(p[i], want[i]) << "step " << step << " [" << i << "]";
      ASSERT_EQ(buf[i], wantBuf[i]) << "step " << step << " [" << i << "]";
    }
  }
}
