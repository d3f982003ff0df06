//===- BlasCoreTest.cpp - OpenBLAS kernels for CPUs it does not know ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/BlasCore.h"
#include "pipewave-runtime/Threads.h"

#include <gtest/gtest.h>

using namespace pipewave::runtime;

namespace {

CpuVectorIsa isa(bool avx2, bool avx512, bool bf16) {
  CpuVectorIsa result;
  result.avx2Fma = avx2;
  result.avx512 = avx512;
  result.avx512Bf16 = bf16;
  return result;
}

} // namespace

TEST(BlasCoreTest, GenericKernelsGiveWayToTheCpusInstructions) {
  // Debian 12's OpenBLAS on a Xeon it does not know: Prescott.
  EXPECT_EQ(betterOpenBlasCore("Prescott", isa(true, true, true)),
            "Cooperlake");
  EXPECT_EQ(betterOpenBlasCore("Prescott", isa(true, true, false)), "SkylakeX");
  EXPECT_EQ(betterOpenBlasCore("Nehalem", isa(true, false, false)), "Haswell");
  // AVX kernels are older than AVX2's too; the name's case does not matter.
  EXPECT_EQ(betterOpenBlasCore("SANDYBRIDGE", isa(true, false, false)),
            "Haswell");
  EXPECT_EQ(betterOpenBlasCore("bulldozer", isa(true, true, false)),
            "SkylakeX");
}

TEST(BlasCoreTest, AChoiceForAKnownCpuStands) {
  // AVX2 kernels or newer: OpenBLAS knew the CPU (Zen 4 gets Zen's).
  EXPECT_EQ(betterOpenBlasCore("Zen", isa(true, true, true)), std::nullopt);
  EXPECT_EQ(betterOpenBlasCore("Haswell", isa(true, true, false)),
            std::nullopt);
  EXPECT_EQ(betterOpenBlasCore("Cooperlake", isa(true, true, true)),
            std::nullopt);
  EXPECT_EQ(betterOpenBlasCore("SkylakeX", isa(true, true, true)),
            std::nullopt);
  // A CPU without AVX2 keeps what it has.
  EXPECT_EQ(betterOpenBlasCore("Prescott", isa(false, false, false)),
            std::nullopt);
  EXPECT_EQ(betterOpenBlasCore("Sandybridge", isa(false, false, false)),
            std::nullopt);
  // A name not known here (a newer OpenBLAS, another architecture).
  EXPECT_EQ(betterOpenBlasCore("Zen5", isa(true, true, true)), std::nullopt);
  EXPECT_EQ(betterOpenBlasCore("", isa(true, true, true)), std::nullopt);
}

TEST(BlasCoreTest, TheReportSaysWhoChoseTheKernels) {
  EXPECT_EQ(describeGemmKernels("Cooperlake", "Cooperlake", "Prescott"),
            "OpenBLAS kernels Cooperlake (chosen for this CPU's "
            "instructions: this OpenBLAS does not know the CPU and chose "
            "Prescott)");
  // The user's variable without the runtime's mark is the user's choice.
  EXPECT_EQ(describeGemmKernels("Haswell", "Haswell", nullptr),
            "OpenBLAS kernels Haswell (as OPENBLAS_CORETYPE says)");
  EXPECT_EQ(describeGemmKernels("Zen", nullptr, nullptr),
            "OpenBLAS kernels Zen");
}

TEST(BlasCoreTest, TheHostsInstructionsAreConsistent) {
  CpuVectorIsa host = hostVectorIsa();
  // Every CPU with AVX-512's four subsets has AVX2 and FMA.
  EXPECT_TRUE(!host.avx512 || host.avx2Fma);
  EXPECT_TRUE(!host.avx512Bf16 || host.avx512);
}
