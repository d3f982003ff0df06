//===- KernelsTest.cpp - The matmul helpers of compiled stage code -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pw_sgemm (through its memref-descriptor arguments) and the two AVX-512
// kernels behind it, against a product in double precision: every layout of
// A and B, beta 0, 1 and 0.5, leading dimensions wider than the matrix,
// shapes that end inside a tile or a strip and k that crosses the kernels'
// 256-step blocks.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "GemmScratch.h"
#include "PackedGemm.h"
#include "SmallGemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

struct Shape {
  int64_t m, n, k;
};

// A strided view of a random matrix: element (i, j) at data[off + i*rs + j*cs].
struct View {
  std::vector<float> data;
  int64_t off, rs, cs;
  float at(int64_t i, int64_t j) const { return data[off + i * rs + j * cs]; }
};

// rows x cols, row-major or (transposed) column-major, with 3 spare
// elements per leading dimension and an offset of 5.
View makeView(int64_t rows, int64_t cols, bool colMajor, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  View v;
  v.off = 5;
  int64_t ld = (colMajor ? rows : cols) + 3;
  v.rs = colMajor ? 1 : ld;
  v.cs = colMajor ? ld : 1;
  v.data.resize(v.off + ld * (colMajor ? cols : rows));
  for (float &x : v.data)
    x = dist(rng);
  return v;
}

// The largest |got - want| over |want|'s scale, for C = beta*C0 + A*B.
double maxError(const View &a, const View &b, const std::vector<float> &c0,
                const std::vector<float> &c, int64_t ldc, float beta, Shape s) {
  double worst = 0.0;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double want = beta * double(c0[i * ldc + j]);
      double scale = std::fabs(want);
      for (int64_t p = 0; p < s.k; ++p) {
        double term = double(a.at(i, p)) * b.at(p, j);
        want += term;
        scale += std::fabs(term);
      }
      double err = std::fabs(double(c[i * ldc + j]) - want) / (scale + 1e-30);
      worst = std::max(worst, err);
    }
  return worst;
}

// The last three fetch their large operands ahead in the few-row kernel
// (B of 512 KiB or more; A likewise where B is transposed), with an odd k, a
// short last strip, a second block of k, and a strip of one tile.
const Shape kShapes[] = {{32, 512, 512},  {8, 128, 128},  {13, 47, 300},
                         {16, 33, 64},    {128, 96, 257}, {32, 130, 70},
                         {4, 128, 128},   {512, 64, 32},  {3, 5, 7},
                         {160, 128, 300}, {12, 520, 301}, {40, 1000, 257},
                         {20, 600, 333}};

class GemmLayouts
    : public ::testing::TestWithParam<std::tuple<bool, bool, float>> {};

// Every shape, through pw_sgemm: OpenBLAS or the kernel, as it decides.
TEST_P(GemmLayouts, PwSgemmMatchesDoubleProduct) {
  auto [aT, bT, beta] = GetParam();
  std::mt19937 rng(7);
  for (Shape s : kShapes) {
    View a = makeView(s.m, s.k, aT, rng);
    View b = makeView(s.k, s.n, bT, rng);
    int64_t ldc = s.n + 2;
    std::vector<float> c0(s.m * ldc);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &x : c0)
      x = dist(rng);
    std::vector<float> c = c0;
    pw_sgemm(beta, a.data.data(), a.data.data(), a.off, s.m, s.k, a.rs, a.cs,
             b.data.data(), b.data.data(), b.off, s.k, s.n, b.rs, b.cs,
             c.data(), c.data(), 0, s.m, s.n, ldc, 1);
    EXPECT_LT(maxError(a, b, c0, c, ldc, beta, s), 1e-5)
        << s.m << "x" << s.n << "x" << s.k;
  }
}

// One of pipewave's kernels, called as kernel(m, n, k, a, aT, lda, b, bT,
// ldb, beta, c, ldc) on random operands of shape s (C starting at 0.25):
// C against the double product, and the elements between rows (ldc > n)
// not written.
template <typename Kernel>
void checkKernel(Kernel kernel, Shape s, bool aT, bool bT, float beta,
                 std::mt19937 &rng) {
  View a = makeView(s.m, s.k, aT, rng);
  View b = makeView(s.k, s.n, bT, rng);
  int64_t ldc = s.n + 2;
  std::vector<float> c0(s.m * ldc, 0.25f);
  std::vector<float> c = c0;
  ASSERT_EQ(kernel(s.m, s.n, s.k, a.data.data() + a.off, aT, aT ? a.cs : a.rs,
                   b.data.data() + b.off, bT, bT ? b.cs : b.rs, beta, c.data(),
                   ldc),
            1)
      << s.m << "x" << s.n << "x" << s.k;
  EXPECT_LT(maxError(a, b, c0, c, ldc, beta, s), 1e-5)
      << s.m << "x" << s.n << "x" << s.k;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = s.n; j < ldc; ++j)
      ASSERT_EQ(c[i * ldc + j], 0.25f);
}

int smallGemmOneThread(int64_t m, int64_t n, int64_t k, const float *a, int aT,
                       int64_t lda, const float *b, int bT, int64_t ldb,
                       float beta, float *c, int64_t ldc) {
  return pw_small_gemm(m, n, k, a, aT, lda, b, bT, ldb, beta, nullptr, c, ldc,
                       1);
}

// The few-row kernel itself, for every product it takes.
TEST_P(GemmLayouts, SmallGemmMatchesDoubleProduct) {
  auto [aT, bT, beta] = GetParam();
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "the kernel needs AVX-512";
  std::mt19937 rng(11);
  int taken = 0;
  for (Shape s : kShapes) {
    if (!pw_small_gemm_takes(s.m, s.n, s.k, bT, aT))
      continue;
    checkKernel(smallGemmOneThread, s, aT, bT, beta, rng);
    ++taken;
  }
  // Transposed A against transposed B is left to OpenBLAS.
  if (!(aT && bT)) {
    EXPECT_GT(taken, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllLayouts, GemmLayouts,
    ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                       ::testing::Values(0.0f, 1.0f, 0.5f)));

// The few-row kernel fetches a weight ahead unless the thread read it so
// recently that it is still in L2: under 1 MiB of product traffic between
// the end of the last read and the start of this one.
TEST(SmallGemm, TellsAWeightStillInL2) {
  static const float w[4] = {}, other[9][4] = {};
  auto read = [](const void *b, uint64_t bytes) {
    pw_gemm_traffic_add(bytes);
    return pw_gemm_recently_read(b, bytes);
  };
  EXPECT_FALSE(read(w, 1 << 20));     // never read here
  EXPECT_TRUE(read(w, 1 << 20));      // right after itself
  pw_gemm_traffic_add((1 << 20) - 1); // another product, under 1 MiB
  EXPECT_TRUE(read(w, 1 << 20));
  pw_gemm_traffic_add(1 << 20); // 1 MiB since: out of L2, likely
  EXPECT_FALSE(read(w, 1 << 20));
  // Eight other operands push it out of the table.
  for (const auto &o : other)
    read(o, 16);
  EXPECT_FALSE(read(w, 16));
}

TEST(SmallGemm, LeavesTheRestToOpenBlas) {
  // More than one OpenBLAS thread: OpenBLAS splits the product.
  std::vector<float> a(32 * 512, 1.0f), b(512 * 512, 1.0f), c(32 * 512);
  EXPECT_EQ(pw_small_gemm(32, 512, 512, a.data(), 0, 512, b.data(), 0, 512,
                          0.0f, nullptr, c.data(), 512, 2),
            0);
  // Shapes where OpenBLAS is the faster: many rows, a short k, few rows
  // against a transposed B.
  EXPECT_FALSE(pw_small_gemm_takes(256, 512, 512, 0, 0));
  EXPECT_FALSE(pw_small_gemm_takes(512, 512, 32, 0, 1));
  EXPECT_FALSE(pw_small_gemm_takes(4, 128, 128, 1, 0));
  EXPECT_TRUE(pw_small_gemm_takes(32, 512, 512, 0, 0));
  EXPECT_TRUE(pw_small_gemm_takes(32, 512, 512, 1, 0));
}

int packedGemmAnyShape(int64_t m, int64_t n, int64_t k, const float *a, int aT,
                       int64_t lda, const float *b, int bT, int64_t ldb,
                       float beta, float *c, int64_t ldc) {
  return pw_packed_gemm_any_shape(m, n, k, a, aT, lda, b, bT, ldb, beta,
                                  nullptr, c, ldc);
}

// The packed kernel on any shape: panels of uneven rows (100 = 7 x 14 + 2
// would leave a short one), strips narrower than 32 columns, k with a
// remainder below 16 and past one or two 256-step blocks.
TEST_P(GemmLayouts, PackedGemmMatchesDoubleProduct) {
  auto [aT, bT, beta] = GetParam();
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "the kernel needs AVX-512";
  const Shape shapes[] = {{64, 128, 128}, {100, 160, 300}, {13, 47, 300},
                          {1, 32, 1},     {30, 70, 513},   {15, 33, 17},
                          {14, 32, 16},   {160, 128, 0}};
  std::mt19937 rng(13);
  for (Shape s : shapes)
    checkKernel(packedGemmAnyShape, s, aT, bT, beta, rng);
}

TEST(PackedGemm, TakesTheFullBatchProducts) {
  // A 512-wide linear layer on 256 rows: forward, input and weight gradient.
  EXPECT_TRUE(pw_packed_gemm_takes(256, 512, 512, 0, 0));
  EXPECT_TRUE(pw_packed_gemm_takes(256, 512, 512, 1, 0));
  EXPECT_TRUE(pw_packed_gemm_takes(512, 512, 256, 0, 1));
  // Too few rows, a short k or n, a narrow last strip, too many rows.
  EXPECT_FALSE(pw_packed_gemm_takes(32, 512, 512, 0, 0));
  EXPECT_FALSE(pw_packed_gemm_takes(512, 512, 32, 0, 1));
  EXPECT_FALSE(pw_packed_gemm_takes(256, 64, 512, 0, 0));
  EXPECT_FALSE(pw_packed_gemm_takes(256, 1000, 512, 0, 0));
  EXPECT_FALSE(pw_packed_gemm_takes(1024, 512, 512, 0, 0));
  // More than one OpenBLAS thread: OpenBLAS splits the product.
  std::vector<float> a(256 * 512, 1.0f), b(512 * 512, 1.0f), c(256 * 512);
  EXPECT_EQ(pw_packed_gemm(256, 512, 512, a.data(), 0, 512, b.data(), 0, 512,
                           0.0f, nullptr, c.data(), 512, 2),
            0);
}

} // namespace
