//===- EpilogueTest.cpp - The bias and clamps a product's call applies ---===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pw_sgemm_bias_clamp and pw_sgemm_positive_mask against the two steps
// each replaces: pw_sgemm on the same operands (the same kernel, so the
// same product), then the bias add and the clamps, or ReLU's backward mask,
// element by element. Each path of the helpers (the packed kernel's tiles,
// its narrow last strip, the few-row kernel, OpenBLAS, plain loops) must
// give the same bits, NaN for NaN, with biases that are NaN, infinite or -0,
// clamps at +-0, where IEEE 754-2019 minimum and maximum differ from fmin
// and fmax, and masks with zeros of both signs and NaN.
//
//===----------------------------------------------------------------------===//

#include "Epilogue.h"
#include "Kernels.h"
#include "PackedGemm.h"
#include "SmallGemm.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

bool sameBits(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return std::isnan(x) && std::isnan(y);
  return std::memcmp(&x, &y, sizeof x) == 0;
}

TEST(Epilogue, MinimumAndMaximumFollowIeee2019) {
  EXPECT_TRUE(std::signbit(pw_minimumf(0.0f, -0.0f)));
  EXPECT_TRUE(std::signbit(pw_minimumf(-0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(pw_maximumf(-0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(pw_maximumf(0.0f, -0.0f)));
  EXPECT_TRUE(std::isnan(pw_minimumf(kNaN, 1.0f)));
  EXPECT_TRUE(std::isnan(pw_maximumf(kNaN, 1.0f)));
  EXPECT_EQ(pw_minimumf(kInf, FLT_MAX), FLT_MAX);
  EXPECT_EQ(pw_maximumf(-kInf, 0.0f), 0.0f);
  EXPECT_EQ(pw_minimumf(-3.0f, 2.0f), -3.0f);
  EXPECT_EQ(pw_maximumf(-3.0f, 2.0f), 2.0f);
  // A missing clamp leaves every value as it is.
  for (float x : {-kInf, -1.0f, -0.0f, 0.0f, 5.0f, kInf}) {
    EXPECT_TRUE(sameBits(pw_minimumf(x, kInf), x)) << x;
    EXPECT_TRUE(sameBits(pw_maximumf(x, -kInf), x)) << x;
  }
}

struct Case {
  int64_t m, n, k;
  bool cColMajor; // C column-major: no BLAS layout, the plain loops
};

// Random A (m x k) and B (k x n), row-major; biases with special values.
struct Operands {
  std::vector<float> a, b, bias;
};

Operands makeOperands(const Case &s, int64_t biasStride, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operands o;
  o.a.resize(s.m * s.k);
  o.b.resize(s.k * s.n);
  o.bias.resize(s.n * biasStride);
  for (float &x : o.a)
    x = dist(rng);
  for (float &x : o.b)
    x = dist(rng);
  const float special[] = {-0.0f, kInf, -kInf, kNaN, 1e30f, 0.0f};
  for (int64_t j = 0; j < s.n; ++j)
    o.bias[j * biasStride] = j % 9 < 6 ? special[j % 9] : dist(rng);
  return o;
}

// (lo, hi): a ReLU as tosa.clamp gives it, no clamp, clamps at -0 and +0
// (where -0 and +0 results differ in sign only), and a band.
const std::pair<float, float> kClamps[] = {{0.0f, FLT_MAX},
                                           {-kInf, kInf},
                                           {-0.0f, 0.0f},
                                           {0.0f, -0.0f},
                                           {-1.0f, 1.0f}};

// What a fused call must give: pw_sgemm of o's operands into an m x n C
// (strides rs, cs), then step(x, i, j) on each element.
template <typename Step>
std::vector<float> unfused(const Case &s, Operands &o, int64_t rs, int64_t cs,
                           Step step) {
  std::vector<float> c(s.m * s.n);
  pw_sgemm(0.0f, o.a.data(), o.a.data(), 0, s.m, s.k, s.k, 1, o.b.data(),
           o.b.data(), 0, s.k, s.n, s.n, 1, c.data(), c.data(), 0, s.m, s.n, rs,
           cs);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j)
      c[i * rs + j * cs] = step(c[i * rs + j * cs], i, j);
  return c;
}

// got against want, bit for bit (NaN for NaN).
void expectSameBits(const std::vector<float> &got,
                    const std::vector<float> &want, const std::string &what) {
  for (size_t e = 0; e < got.size(); ++e)
    ASSERT_TRUE(sameBits(got[e], want[e])) << what << ", element " << e << ": "
                                           << got[e] << " against " << want[e];
}

std::string describe(const Case &s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

// The fused call against pw_sgemm followed by the element-wise steps.
void checkFused(const Case &s, std::mt19937 &rng) {
  Operands o = makeOperands(s, 1, rng);
  int64_t rs = s.cColMajor ? 1 : s.n, cs = s.cColMajor ? s.m : 1;
  for (auto [lo, hi] : kClamps) {
    std::vector<float> want = unfused(
        s, o, rs, cs, [&, lo = lo, hi = hi](float x, int64_t, int64_t j) {
          return pw_maximumf(pw_minimumf(x + o.bias[j], hi), lo);
        });
    std::vector<float> got(s.m * s.n, 7.0f);
    pw_sgemm_bias_clamp(0.0f, o.a.data(), o.a.data(), 0, s.m, s.k, s.k, 1,
                        o.b.data(), o.b.data(), 0, s.k, s.n, s.n, 1, got.data(),
                        got.data(), 0, s.m, s.n, rs, cs, o.bias.data(),
                        o.bias.data(), 0, s.n, 1, lo, hi);
    expectSameBits(got, want,
                   describe(s) + " clamp [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  }
}

// A mask Y (m x n, row-major with row stride ldy): positive and negative
// values, zeros of both signs and NaN (which masks, as `ogt` says).
std::vector<float> makeMask(int64_t m, int64_t ldy, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const float special[] = {-0.0f, 0.0f, kNaN, kInf, -kInf};
  std::vector<float> y(m * ldy);
  for (size_t e = 0; e < y.size(); ++e)
    y[e] = e % 7 < 5 ? special[e % 7] : dist(rng);
  for (size_t e = 0; e < y.size(); e += 11)
    y[e] = dist(rng);
  return y;
}

// The masked call against pw_sgemm followed by the select.
void checkMasked(const Case &s, std::mt19937 &rng) {
  Operands o = makeOperands(s, 1, rng);
  std::vector<float> y = makeMask(s.m, s.n + 1, rng);
  int64_t rs = s.cColMajor ? 1 : s.n, cs = s.cColMajor ? s.m : 1;
  std::vector<float> want =
      unfused(s, o, rs, cs, [&](float x, int64_t i, int64_t j) {
        return y[i * (s.n + 1) + j] > 0.0f ? x : 0.0f;
      });
  std::vector<float> got(s.m * s.n, 7.0f);
  pw_sgemm_positive_mask(0.0f, o.a.data(), o.a.data(), 0, s.m, s.k, s.k, 1,
                         o.b.data(), o.b.data(), 0, s.k, s.n, s.n, 1,
                         got.data(), got.data(), 0, s.m, s.n, rs, cs, y.data(),
                         y.data(), 0, s.m, s.n, s.n + 1, 1);
  expectSameBits(got, want, describe(s) + " masked");
}

// The packed kernel (one and two k blocks), the few-row kernel, OpenBLAS
// (many rows and a narrow last strip, which neither kernel takes) and the
// plain loops. pipewave's kernels run on one OpenBLAS thread, as a rank runs
// (without AVX-512 OpenBLAS takes their shapes).
TEST(Epilogue, FusedCallsMatchTheStepsTheyReplace) {
  int threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  std::mt19937 rng(17);
  for (Case s : {Case{160, 128, 300, false}, Case{144, 160, 128, false},
                 Case{8, 128, 128, false}, Case{200, 100, 128, false},
                 Case{13, 40, 9, true}}) {
    checkFused(s, rng);
    checkMasked(s, rng);
  }
  openblas_set_num_threads(threads);
}

// The packed kernel on shapes its rule declines: a narrow last strip (its
// values go through a buffer), and a strided bias or mask (applied after
// the product).
TEST(Epilogue, PackedKernelAppliesItOnEveryShape) {
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "the kernel needs AVX-512";
  std::mt19937 rng(19);
  Case s{30, 70, 513, false};
  for (int64_t stride : {1, 3})
    for (bool masked : {false, true}) {
      Operands o = makeOperands(s, stride, rng);
      std::vector<float> y = makeMask(s.m, s.n * stride, rng);
      pw_epilogue ep = {o.bias.data(), stride,  0.0f, FLT_MAX, nullptr, 0, 0,
                        nullptr,       nullptr, 0};
      if (masked)
        ep = {nullptr, 0, 0.0f, 0.0f, y.data(), s.n * stride, stride};
      std::vector<float> want(s.m * s.n), got(s.m * s.n);
      ASSERT_EQ(pw_packed_gemm_any_shape(s.m, s.n, s.k, o.a.data(), 0, s.k,
                                         o.b.data(), 0, s.n, 0.0f, nullptr,
                                         want.data(), s.n),
                1);
      pw_epilogue_apply(&ep, want.data(), s.m, s.n, s.n, 1);
      ASSERT_EQ(pw_packed_gemm_any_shape(s.m, s.n, s.k, o.a.data(), 0, s.k,
                                         o.b.data(), 0, s.n, 0.0f, &ep,
                                         got.data(), s.n),
                1);
      expectSameBits(got, want,
                     std::string(masked ? "mask" : "bias") + " stride " +
                         std::to_string(stride));
    }
}

// The few-row kernel applies it to each tile as it stores it (with a
// transposed B, to each block of the final transpose), and a strided bias or
// mask after the product: the same bits as the product, then the epilogue.
// The shapes take the paths that fetch ahead, a short last strip and a second
// block of k.
TEST(Epilogue, FewRowKernelAppliesItOnEveryShape) {
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "the kernel needs AVX-512";
  std::mt19937 rng(23);
  for (bool bT : {false, true})
    for (Case s : {Case{12, 520, 301, false}, Case{40, 200, 257, false},
                   Case{20, 600, 333, false}}) {
      if (!pw_small_gemm_takes(s.m, s.n, s.k, bT, 0))
        continue;
      int64_t ldb = bT ? s.k : s.n;
      for (int64_t stride : {1, 3})
        for (bool masked : {false, true})
          for (float beta : {0.0f, 0.5f}) {
            Operands o = makeOperands(s, stride, rng);
            std::vector<float> y = makeMask(s.m, s.n * stride, rng);
            pw_epilogue ep = {o.bias.data(), stride, -1.0f, 2.0f,
                              nullptr,       0,      0,     nullptr,
                              nullptr,       0};
            if (masked)
              ep = {nullptr, 0, 0.0f, 0.0f, y.data(), s.n * stride, stride};
            std::vector<float> want(s.m * s.n, 0.25f), got = want;
            ASSERT_EQ(pw_small_gemm(s.m, s.n, s.k, o.a.data(), 0, s.k,
                                    o.b.data(), bT, ldb, beta, nullptr,
                                    want.data(), s.n, 1),
                      1);
            pw_epilogue_apply(&ep, want.data(), s.m, s.n, s.n, 1);
            ASSERT_EQ(pw_small_gemm(s.m, s.n, s.k, o.a.data(), 0, s.k,
                                    o.b.data(), bT, ldb, beta, &ep, got.data(),
                                    s.n, 1),
                      1);
            expectSameBits(got, want,
                           describe(s) + (bT ? " B transposed, " : ", ") +
                               (masked ? "mask" : "bias") + " stride " +
                               std::to_string(stride) + " beta " +
                               std::to_string(beta));
          }
    }
}

} // namespace
