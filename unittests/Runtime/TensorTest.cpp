//===- TensorTest.cpp - Tests of tensor helpers and batch splitting -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Tensor.h"
#include "pipewave-runtime/Init.h"

#include "TestUtil.h"

#include <cmath>
#include <cstring>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

TEST(TensorTest, SplitsTheBatchDimension) {
  EXPECT_EQ(microbatchShape({16, 8}, 4, "x"), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(microbatchShape({6}, 6, "x"), (std::vector<int64_t>{1}));
  EXPECT_EQ(microbatchShape({8, 3, 2}, 1, "x"),
            (std::vector<int64_t>{8, 3, 2}));
  EXPECT_NE(PW_ERROR_OF(microbatchShape({10, 8}, 4, "data input 'x'"))
                .find("data input 'x': batch dimension 10 of shape [10, 8] "
                      "is not divisible by the 4 microbatches"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(microbatchShape({}, 2, "x")).find("is a scalar"),
            std::string::npos);
}

TEST(TensorTest, MicrobatchSlicesAreContiguousRows) {
  HostTensor x(PW_I32, {8, 3});
  auto *data = static_cast<int32_t *>(x.data());
  for (int i = 0; i < 24; ++i)
    data[i] = i;
  for (int m = 0; m < 4; ++m) {
    const auto *slice = static_cast<const int32_t *>(
        microbatchSlice(x.data(), x.bytes(), 4, m));
    EXPECT_EQ(slice[0], m * 6);
    EXPECT_EQ(slice[5], m * 6 + 5);
  }
}

TEST(TensorTest, NamesShapesSumsAndHashes) {
  EXPECT_EQ(shapeString({16, 8}), "[16, 8]");
  EXPECT_EQ(shapeString({}), "[]");
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({3, 0}), 0);
  EXPECT_EQ(dtypeName(PW_BOOL), "bool");
  EXPECT_EQ(dtypeSize(PW_F64), 8u);
  EXPECT_EQ(alignUp(1), 64u);
  EXPECT_EQ(alignUp(128), 128u);
  float v[] = {1.5f, -0.5f, 2.0f};
  EXPECT_DOUBLE_EQ(elementSum(PW_F32, v, 3), 3.0);
  EXPECT_EQ(fnv1a("", 0), 14695981039346656037ull);
  EXPECT_EQ(fnv1a("a", 1), 0xaf63dc4c8601ec8cull);
  HostTensor t(PW_F32, {5});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kBufferAlignment, 0u);
}

TEST(InitTest, DefaultValuesAreDeterministicAndBounded) {
  std::vector<int64_t> shape = {1, 64, 128};
  EXPECT_DOUBLE_EQ(initBound(shape), 1.0 / 8.0);
  EXPECT_DOUBLE_EQ(initBound({16}), 0.25);
  EXPECT_DOUBLE_EQ(initBound({1, 128}), 1.0 / std::sqrt(128.0));
  std::vector<float> a(64 * 128), b(64 * 128), c(64 * 128);
  initParameter("w0", PW_F32, shape, 0, a.data());
  initParameter("w0", PW_F32, shape, 0, b.data());
  initParameter("w0", PW_F32, shape, 1, c.data());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * 4), 0);
  float lo = 1, hi = -1;
  double mean = 0;
  for (float x : a) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    mean += x;
  }
  mean /= a.size();
  EXPECT_GE(lo, -0.125f);
  EXPECT_LT(hi, 0.125f);
  EXPECT_LT(lo, -0.12f) << "the range is used";
  EXPECT_GT(hi, 0.12f);
  EXPECT_NEAR(mean, 0.0, 0.005);
  initParameter("w1", PW_F32, shape, 0, c.data());
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * 4), 0)
      << "streams differ by name";
  int32_t ints[4] = {1, 2, 3, 4};
  initParameter("n", PW_I32, {4}, 0, ints);
  EXPECT_EQ(ints[3], 0);
}
