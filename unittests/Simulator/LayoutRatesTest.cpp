//===- LayoutRatesTest.cpp - The calibration's transposed-layout rates ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// matmulNT and matmulTN: a matmul that reads an operand transposed is
// priced from its layout's own table, not from the NN table times the
// class ratio of matmulKernels.
//
//===----------------------------------------------------------------------===//

#include "CalibratedDevice.h"

#include "gtest/gtest.h"

using namespace pipewave::sim;
using namespace pipewave::sim::test;

namespace {

/// Layout tables of round figures, and a matmulKernels table whose class
/// ratio (nt-small 3x nn, tn-small 2x nn) the tables must override.
const char *const kLayouts = R"(
    "matmulNT": [
      { "m": 4, "n": 128, "k": 32, "flopsPerSecond": 2e10 },
      { "m": 16, "n": 128, "k": 32, "flopsPerSecond": 8e10 }
    ],
    "matmulTN": [
      { "m": 128, "n": 128, "k": 4, "flopsPerSecond": 1e11 }
    ],
    "matmulKernels": [
      { "class": "nn-small", "m": 8, "n": 128, "k": 128,
        "vectorSeconds": 1e-6, "blasSeconds": 2e-6, "kernel": "vector" },
      { "class": "nt-small", "m": 8, "n": 128, "k": 128,
        "vectorSeconds": 5e-6, "blasSeconds": 3e-6, "kernel": "blas" },
      { "class": "tn-small", "m": 8, "n": 128, "k": 128,
        "vectorSeconds": 4e-6, "blasSeconds": 2e-6, "kernel": "blas" }
    ],)";

OpWork transposed(double m, double n, double k, bool a, bool b) {
  OpWork work = matmul(m, n, k);
  work.transposedA = a;
  work.transposedB = b;
  return work;
}

TEST(LayoutRatesTest, TransposedLayoutsUseTheirOwnTables) {
  std::string error;
  std::optional<DeviceSpec> device =
      parseDeviceJson(calibratedWith(kLayouts), &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  ASSERT_EQ(c.matmulNT.size(), 2u);
  ASSERT_EQ(c.matmulTN.size(), 1u);
  // dY W^T of 4 rows at the first NT point: 1 us fixed + 32768 flops at
  // 20 GFLOP/s.
  EXPECT_NEAR(device->opSeconds(transposed(4, 128, 32, false, true)),
              1e-6 + 2.0 * 4 * 128 * 32 / 2e10, 1e-15);
  // Halfway between the two points in log2(M) (8 rows): the geometric
  // mean of their rates, 40 GFLOP/s.
  EXPECT_NEAR(device->opSeconds(transposed(8, 128, 32, false, true)),
              1e-6 + 2.0 * 8 * 128 * 32 / 4e10, 1e-15);
  // A weight gradient from the TN table's one point, anywhere.
  EXPECT_NEAR(device->opSeconds(transposed(128, 128, 4, true, false)),
              1e-6 + 2.0 * 128 * 128 * 4 / 1e11, 1e-15);
  EXPECT_NEAR(device->opSeconds(transposed(64, 32, 8, true, false)),
              1e-6 + 2.0 * 64 * 32 * 8 / 1e11, 1e-15);
  // NN keeps the matmul table (16x64x64 at 10 GFLOP/s), and TT, which has
  // no table, keeps the NN rate times the class ratio (no tt class: 1).
  EXPECT_NEAR(device->opSeconds(matmul(16, 64, 64)),
              1e-6 + 2.0 * 16 * 64 * 64 / 1e10, 1e-15);
  EXPECT_NEAR(device->opSeconds(transposed(16, 64, 64, true, true)),
              1e-6 + 2.0 * 16 * 64 * 64 / 1e10, 1e-15);
  expectRoundTrip(*device);
}

TEST(LayoutRatesTest, WithoutTablesTheClassRatioPrices) {
  // The same kernels without the layout tables: nt-small's chosen blas
  // (3 us) over nn-small's chosen vector (1 us) multiplies the NN price.
  std::string kernelsOnly = kLayouts;
  kernelsOnly.erase(0, kernelsOnly.find("\"matmulKernels\""));
  std::string error;
  std::optional<DeviceSpec> device =
      parseDeviceJson(calibratedWith(kernelsOnly), &error);
  ASSERT_TRUE(device) << error;
  EXPECT_TRUE(device->calibration->matmulNT.empty());
  double nn = device->opSeconds(matmul(16, 64, 64)) - 1e-6;
  EXPECT_NEAR(device->opSeconds(transposed(16, 64, 64, false, true)),
              1e-6 + 3 * nn, 1e-15);
  EXPECT_NEAR(device->opSeconds(transposed(16, 64, 64, true, false)),
              1e-6 + 2 * nn, 1e-15);
}

TEST(LayoutRatesTest, RejectsBrokenTables) {
  std::string error;
  EXPECT_FALSE(parseDeviceJson(calibratedWith("\"matmulNT\": 3,"), &error));
  EXPECT_NE(error.find("'matmulNT' must be an array"), std::string::npos)
      << error;
  error.clear();
  EXPECT_FALSE(parseDeviceJson(
      calibratedWith("\"matmulTN\": [{ \"m\": 8, \"n\": 8, \"k\": 8 }],"),
      &error));
  EXPECT_NE(error.find("matmulTN: an entry lacks a positive 'flopsPerSecond'"),
            std::string::npos)
      << error;
  error.clear();
  EXPECT_FALSE(parseDeviceJson(
      calibratedWith("\"matmulNT\": [{ \"m\": 0, \"n\": 8, \"k\": 8, "
                     "\"flopsPerSecond\": 1e9 }],"),
      &error));
  EXPECT_NE(error.find("matmulNT: an entry lacks a positive 'm'"),
            std::string::npos)
      << error;
}

} // namespace
