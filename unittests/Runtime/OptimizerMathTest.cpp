//===- OptimizerMathTest.cpp - The shared per-element optimizer formulas --===//
//
// Part of the pipewave project.
//
// optimizerUpdate() (the CPU path) and the CUDA device's kernels both apply
// the inline functions of OptimizerMath.h. These tests show, bit for bit on
// random data, that
// * optimizerUpdate() is exactly a loop of sgdElement()/adamElement() over
//   sgdScalars()/adamScalars() (what each kernel thread computes), and
// * its numbers are those of the loops the runtime had before the formulas
//   moved into the header (kept below verbatim), so no CPU result changed.
// This file is compiled with -ffp-contract=off, as Optimizer.cpp is.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/OptimizerMath.h"
#include "pipewave-runtime/Optimizer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace pipewave::runtime;

namespace {

// The runtime's loops before OptimizerMath.h, unchanged.
void legacySgd(const OptimizerConfig &c, int64_t step, float *p,
               const float *grad, float *const *state, size_t n) {
  const float wd = static_cast<float>(c.weightDecay);
  const float mu = static_cast<float>(c.momentum);
  const float keep = static_cast<float>(1.0 - c.dampening);
  const float negLr = static_cast<float>(-c.lr);
  float *buf = c.momentum != 0 ? state[0] : nullptr;
  for (size_t i = 0; i < n; ++i) {
    float g = grad[i];
    if (c.weightDecay != 0)
      g = g + wd * p[i];
    if (buf) {
      float b = step <= 1 ? g : buf[i] * mu + keep * g;
      buf[i] = b;
      g = c.nesterov ? g + mu * b : b;
    }
    p[i] = p[i] + negLr * g;
  }
}

void legacyAdam(const OptimizerConfig &c, int64_t step, float *p,
                const float *grad, float *const *state, size_t n) {
  const bool decoupled = c.kind == OptimizerKind::AdamW;
  const float wd = static_cast<float>(c.weightDecay);
  const float decay = static_cast<float>(1.0 - c.lr * c.weightDecay);
  const float w = static_cast<float>(1.0 - c.beta1);
  const bool smallWeight = std::fabs(w) < 0.5f;
  const float b2 = static_cast<float>(c.beta2);
  const float c2 = static_cast<float>(1.0 - c.beta2);
  const double t = static_cast<double>(step);
  const double biasCorrection1 = 1.0 - std::pow(c.beta1, t);
  const double biasCorrection2 = 1.0 - std::pow(c.beta2, t);
  const float negStepSize = static_cast<float>(-(c.lr / biasCorrection1));
  const float c2Sqrt = static_cast<float>(std::sqrt(biasCorrection2));
  const float eps = static_cast<float>(c.eps);
  float *m = state[0];
  float *v = state[1];
  for (size_t i = 0; i < n; ++i) {
    float g = grad[i];
    if (c.weightDecay != 0) {
      if (decoupled)
        p[i] = p[i] * decay;
      else
        g = g + wd * p[i];
    }
    m[i] = smallWeight ? m[i] + w * (g - m[i]) : g - (g - m[i]) * (1.0f - w);
    v[i] = v[i] * b2;
    v[i] = v[i] + (c2 * g) * g;
    float denom = std::sqrt(v[i]) / c2Sqrt + eps;
    p[i] = p[i] + (negStepSize * m[i]) / denom;
  }
}

/// Parameters, gradients and state of one tensor.
struct Tensors {
  std::vector<float> p;
  std::vector<std::vector<float>> state;
  std::vector<float *> pointers() {
    std::vector<float *> result;
    for (auto &s : state)
      result.push_back(s.data());
    return result;
  }
};

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Ten updates of 1000 random elements by optimizerUpdate(), by the
/// element functions and by the legacy loops: all three agree bit for bit.
void checkSameBits(const OptimizerConfig &config) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t n = 1000;
  size_t states = optimizerStateNames(config).size();
  Tensors runtime, element, legacy;
  std::vector<float> start(n);
  for (float &x : start)
    x = normal(rng);
  for (Tensors *t : {&runtime, &element, &legacy}) {
    t->p = start;
    t->state.assign(states, std::vector<float>(n, 0.0f));
  }
  for (int64_t step = 1; step <= 10; ++step) {
    std::vector<float> grad(n);
    for (float &x : grad)
      x = normal(rng) * (step % 3 == 0 ? 1e-4f : 1.0f);
    std::vector<float *> rs = runtime.pointers(), ls = legacy.pointers();
    optimizerUpdate(config, step, runtime.p.data(), grad.data(), rs.data(), n);
    if (config.kind == OptimizerKind::SGD) {
      legacySgd(config, step, legacy.p.data(), grad.data(), ls.data(), n);
      SgdScalars s = sgdScalars(config, step);
      for (size_t i = 0; i < n; ++i)
        element.p[i] = sgdElement(s, element.p[i], grad[i],
                                  s.momentum ? &element.state[0][i] : nullptr);
    } else {
      legacyAdam(config, step, legacy.p.data(), grad.data(), ls.data(), n);
      AdamScalars s = adamScalars(config, step);
      for (size_t i = 0; i < n; ++i)
        element.p[i] = adamElement(s, element.p[i], grad[i],
                                   &element.state[0][i], &element.state[1][i]);
    }
    std::string what =
        describeOptimizer(config) + " step " + std::to_string(step);
    EXPECT_TRUE(sameBits(runtime.p, element.p)) << what;
    EXPECT_TRUE(sameBits(runtime.p, legacy.p)) << what;
    for (size_t k = 0; k < states; ++k) {
      EXPECT_TRUE(sameBits(runtime.state[k], element.state[k])) << what;
      EXPECT_TRUE(sameBits(runtime.state[k], legacy.state[k])) << what;
    }
  }
}

} // namespace

TEST(OptimizerMathTest, SgdVariantsSameBits) {
  OptimizerConfig c;
  c.kind = OptimizerKind::SGD;
  c.lr = 0.1;
  checkSameBits(c);
  c.momentum = 0.9;
  checkSameBits(c);
  c.dampening = 0.1;
  c.weightDecay = 0.01;
  checkSameBits(c);
  c.dampening = 0;
  c.nesterov = true;
  checkSameBits(c);
}

TEST(OptimizerMathTest, AdamVariantsSameBits) {
  OptimizerConfig c;
  c.kind = OptimizerKind::Adam;
  c.lr = 0.05;
  checkSameBits(c);
  c.weightDecay = 0.1;
  checkSameBits(c);
  // beta1 < 0.5: torch.lerp's other branch.
  c.beta1 = 0.3;
  checkSameBits(c);
}

TEST(OptimizerMathTest, AdamWVariantsSameBits) {
  OptimizerConfig c;
  c.kind = OptimizerKind::AdamW;
  c.lr = 0.05;
  c.weightDecay = defaultWeightDecay(c.kind);
  checkSameBits(c);
  c.weightDecay = 0;
  checkSameBits(c);
}

TEST(OptimizerMathTest, ScalarsFollowTheConfig) {
  OptimizerConfig c;
  c.kind = OptimizerKind::Adam;
  c.lr = 0.1;
  c.beta1 = 0.9;
  c.beta2 = 0.999;
  AdamScalars s = adamScalars(c, 1);
  EXPECT_FALSE(s.decoupled);
  EXPECT_FALSE(s.decayOn);
  EXPECT_TRUE(s.smallWeight);
  EXPECT_EQ(s.negStepSize, static_cast<float>(-(0.1 / (1.0 - 0.9))));
  EXPECT_EQ(s.c2Sqrt, static_cast<float>(std::sqrt(1.0 - 0.999)));
  SgdScalars g = sgdScalars(c, 2);
  EXPECT_FALSE(g.first);
  EXPECT_TRUE(sgdScalars(c, 1).first);
}
