//===- FusedUpdateTest.cpp - SGD updates that gradient products run ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pw_sgemm_update and pw_sgemm_batched_update (FusedUpdate.h): with an
// update armed for their result and parameter, every path of the product
// (the packed kernel over one or two k blocks, the few-row kernel,
// OpenBLAS) leaves the gradient as the plain product writes
// it (or, with grad_dead, the packed kernel over one block of k as it was)
// and the parameter (and momentum buffer) as OptimizerMath.h's
// sgdElement makes it from that gradient, bit for bit, for each form of
// SGD; it reports non-finite gradient values; unarmed, or armed for another
// parameter, it is the plain product.
//
//===----------------------------------------------------------------------===//

#include "FusedUpdate.h"
#include "Kernels.h"
#include "PackedGemm.h"
#include "SmallGemm.h"

#include <cblas.h>

#include "pipewave-runtime/OptimizerMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

namespace {

using pipewave::runtime::sgdElement;
using pipewave::runtime::SgdScalars;

std::vector<float> random(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float &x : v)
    x = dist(rng);
  return v;
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The forms of SGD, as the runtime's sgdScalars() gives them.
SgdScalars sgd(bool decay, bool momentum, bool nesterov, bool first) {
  SgdScalars s;
  s.negLr = -0.05f;
  s.decay = decay;
  s.wd = decay ? 0.01f : 0.0f;
  s.momentum = momentum;
  s.mu = momentum ? 0.9f : 0.0f;
  s.keep = momentum ? 0.75f : 1.0f;
  s.nesterov = nesterov;
  s.first = first;
  return s;
}

pw_fused_update armedFor(const SgdScalars &s, float *grad, float *param,
                         float *buf, int64_t count) {
  pw_fused_update u = {};
  u.grad = grad;
  u.param = param;
  u.momentum_buffer = s.momentum ? buf : nullptr;
  u.count = count;
  pipewave::runtime::setFusedSgd(u, s);
  return u;
}

struct Shape {
  int64_t m, n, k;
  float beta;
};

// One OpenBLAS thread, as a rank runs (pipewave's kernels leave the
// products to OpenBLAS when it runs more), while in scope.
struct OneBlasThread {
  int threads = openblas_get_num_threads();
  OneBlasThread() { openblas_set_num_threads(1); }
  ~OneBlasThread() { openblas_set_num_threads(threads); }
};

class FusedUpdateTest : public ::testing::TestWithParam<Shape> {};

// C (m x n) = beta * C + A (m x k) * B (k x n), all row-major; then the
// parameter P (m x n) by every form of SGD.
TEST_P(FusedUpdateTest, ProductRunsTheUpdateOfOptimizerMath) {
  OneBlasThread oneThread;
  const Shape shape = GetParam();
  const int64_t m = shape.m, n = shape.n, k = shape.k, count = m * n;
  std::mt19937 rng(static_cast<unsigned>(m * 131 + n * 7 + k));
  std::vector<float> a = random(m * k, rng), b = random(k * n, rng);
  std::vector<float> c0 = random(count, rng), p0 = random(count, rng);
  std::vector<float> buf0 = random(count, rng);
  // The plain product's gradient.
  std::vector<float> grad = c0;
  pw_sgemm(shape.beta, a.data(), a.data(), 0, m, k, k, 1, b.data(), b.data(), 0,
           k, n, n, 1, grad.data(), grad.data(), 0, m, n, n, 1);
  for (const SgdScalars &s :
       {sgd(false, false, false, false), sgd(true, false, false, false),
        sgd(false, true, false, true), sgd(true, true, false, false),
        sgd(false, true, true, false)}) {
    std::vector<float> wantP = p0, wantBuf = buf0;
    for (int64_t i = 0; i < count; ++i)
      wantP[i] = sgdElement(s, p0[i], grad[i], &wantBuf[i]);
    // With grad_dead, the packed kernel over one block of k updates from
    // its tiles and leaves the gradient as it was; every other path writes
    // it as before.
    bool direct = pw_packed_gemm_enabled() && openblas_get_num_threads() == 1 &&
                  !pw_small_gemm_takes(m, n, k, 0, 0) &&
                  pw_packed_gemm_takes(m, n, k, 0, 0) && k <= 256;
    for (bool dead : {false, true}) {
      std::vector<float> c = c0, p = p0, buf = buf0;
      pw_fused_update u = armedFor(s, c.data(), p.data(), buf.data(), count);
      u.grad_dead = dead;
      pw_arm_updates(&u, 1);
      pw_sgemm_update(shape.beta, a.data(), a.data(), 0, m, k, k, 1, b.data(),
                      b.data(), 0, k, n, n, 1, c.data(), c.data(), 0, m, n, n,
                      1, p.data(), p.data(), 0, m, n, n, 1);
      pw_arm_updates(nullptr, 0);
      EXPECT_EQ(u.done, 1);
      EXPECT_EQ(u.nonfinite, 0);
      bool left = dead && direct;
      EXPECT_EQ(u.grad_left, left ? 1 : 0);
      EXPECT_TRUE(sameBits(c, left ? c0 : grad))
          << (left ? "the gradient was written" : "the gradient changed");
      EXPECT_TRUE(sameBits(p, wantP))
          << "decay " << s.decay << " momentum " << s.momentum << " nesterov "
          << s.nesterov << " first " << s.first << " grad_dead " << dead;
      if (s.momentum)
        EXPECT_TRUE(sameBits(buf, wantBuf));
      else
        EXPECT_TRUE(sameBits(buf, buf0));
    }
  }
}

// On a CPU with AVX-512 the cases above take the packed kernel's update
// from its tiles: the MLP's weight gradient and a product with beta 1.
TEST(FusedUpdateKernelTest, WeightGradientUpdatesFromItsTiles) {
  if (!pw_packed_gemm_enabled())
    GTEST_SKIP() << "the packed kernel needs AVX-512";
  for (auto [m, n, k] : {std::tuple{512, 512, 256}, std::tuple{160, 256, 192}})
    EXPECT_TRUE(!pw_small_gemm_takes(m, n, k, 0, 0) &&
                pw_packed_gemm_takes(m, n, k, 0, 0))
        << m << "x" << n << "x" << k;
}

INSTANTIATE_TEST_SUITE_P(
    EveryKernel, FusedUpdateTest,
    ::testing::Values(Shape{512, 512, 256, 0.0f}, // packed, the MLP's dW
                      Shape{160, 256, 192, 1.0f}, // packed, one block, beta 1
                      Shape{96, 128, 512, 1.0f},  // packed, two k blocks
                      Shape{32, 64, 200, 0.0f},   // few rows
                      Shape{300, 72, 16, 1.0f})); // OpenBLAS

// Both batches of a batched product update their parts of the parameter.
TEST(FusedUpdateKernelTest, BatchedProductUpdatesEveryBatch) {
  const int64_t batches = 2, m = 64, n = 128, k = 128, count = batches * m * n;
  std::mt19937 rng(11);
  std::vector<float> a = random(batches * m * k, rng);
  std::vector<float> b = random(batches * k * n, rng);
  std::vector<float> p0 = random(count, rng);
  std::vector<float> grad(count);
  for (int64_t i = 0; i < batches; ++i)
    pw_sgemm(0.0f, a.data(), a.data(), i * m * k, m, k, k, 1, b.data(),
             b.data(), i * k * n, k, n, n, 1, grad.data(), grad.data(),
             i * m * n, m, n, n, 1);
  SgdScalars s = sgd(false, false, false, false);
  std::vector<float> wantP = p0;
  for (int64_t i = 0; i < count; ++i)
    wantP[i] = sgdElement(s, p0[i], grad[i], nullptr);
  std::vector<float> c(count), p = p0;
  pw_fused_update u = armedFor(s, c.data(), p.data(), nullptr, count);
  pw_arm_updates(&u, 1);
  pw_sgemm_batched_update(0.0f, a.data(), a.data(), 0, batches, m, k, m * k, k,
                          1, b.data(), b.data(), 0, batches, k, n, k * n, n, 1,
                          c.data(), c.data(), 0, batches, m, n, m * n, n, 1,
                          p.data(), p.data(), 0, batches, m, n, m * n, n, 1);
  pw_arm_updates(nullptr, 0);
  EXPECT_EQ(u.done, 1);
  EXPECT_TRUE(sameBits(c, grad));
  EXPECT_TRUE(sameBits(p, wantP));
}

// A NaN or an infinity in the gradient is reported; the update still runs
// (the runtime stops before anything of the step is saved).
TEST(FusedUpdateKernelTest, ReportsNonfiniteGradients) {
  OneBlasThread oneThread;
  const int64_t m = 256, n = 256, k = 256, count = m * n;
  for (float bad : {std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity()})
    for (bool dead : {false, true}) {
      std::mt19937 rng(3);
      std::vector<float> a = random(m * k, rng), b = random(k * n, rng);
      a[(m - 1) * k + 5] = bad; // the last row's gradients
      std::vector<float> c(count), p = random(count, rng);
      pw_fused_update u = armedFor(sgd(false, false, false, false), c.data(),
                                   p.data(), nullptr, count);
      u.grad_dead = dead; // the tiles' values, on the packed kernel
      pw_arm_updates(&u, 1);
      pw_sgemm_update(0.0f, a.data(), a.data(), 0, m, k, k, 1, b.data(),
                      b.data(), 0, k, n, n, 1, c.data(), c.data(), 0, m, n, n,
                      1, p.data(), p.data(), 0, m, n, n, 1);
      pw_arm_updates(nullptr, 0);
      EXPECT_EQ(u.done, 1);
      EXPECT_EQ(u.nonfinite, 1) << bad << " grad_dead " << dead;
    }
}

// Unarmed, armed for another parameter, or for a gradient of another size:
// the plain product, and the parameter as it was.
TEST(FusedUpdateKernelTest, OtherwiseThePlainProduct) {
  const int64_t m = 128, n = 128, k = 128, count = m * n;
  std::mt19937 rng(5);
  std::vector<float> a = random(m * k, rng), b = random(k * n, rng);
  std::vector<float> p0 = random(count, rng), other(count);
  std::vector<float> grad(count);
  pw_sgemm(0.0f, a.data(), a.data(), 0, m, k, k, 1, b.data(), b.data(), 0, k, n,
           n, 1, grad.data(), grad.data(), 0, m, n, n, 1);
  std::vector<float> c(count), p = p0;
  SgdScalars s = sgd(false, false, false, false);
  pw_fused_update wrongParam =
      armedFor(s, c.data(), other.data(), nullptr, count);
  pw_fused_update wrongCount =
      armedFor(s, c.data(), p.data(), nullptr, count - 1);
  for (pw_fused_update *u :
       {static_cast<pw_fused_update *>(nullptr), &wrongParam, &wrongCount}) {
    pw_arm_updates(u, u ? 1 : 0);
    pw_sgemm_update(0.0f, a.data(), a.data(), 0, m, k, k, 1, b.data(), b.data(),
                    0, k, n, n, 1, c.data(), c.data(), 0, m, n, n, 1, p.data(),
                    p.data(), 0, m, n, n, 1);
    pw_arm_updates(nullptr, 0);
    if (u) {
      EXPECT_EQ(u->done, 0);
    }
    EXPECT_TRUE(sameBits(c, grad));
    EXPECT_TRUE(sameBits(p, p0));
  }
}

} // namespace
