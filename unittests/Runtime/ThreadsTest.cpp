//===- ThreadsTest.cpp - GEMM threads of each rank ------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Threads.h"

#include <gtest/gtest.h>

using namespace pipewave::runtime;

TEST(ThreadsTest, TheCpusAreSharedAmongTheLocalRanks) {
  ThreadChoice c = chooseThreads(0, 16, 4, nullptr, nullptr);
  EXPECT_EQ(c.threads, 4);
  EXPECT_EQ(c.reason, "16 CPUs / 4 local ranks");
  // More ranks than CPUs: one thread each, never none.
  EXPECT_EQ(chooseThreads(0, 2, 4, nullptr, nullptr).threads, 1);
  EXPECT_EQ(chooseThreads(0, 2, 1, nullptr, nullptr).threads, 2);
  EXPECT_EQ(chooseThreads(0, 7, 2, nullptr, nullptr).threads, 3);
  EXPECT_EQ(chooseThreads(0, 0, 0, nullptr, nullptr).threads, 1);
}

TEST(ThreadsTest, TheOptionThenTheUsersVariablesDecide) {
  ThreadChoice option = chooseThreads(5, 2, 2, "1", "1");
  EXPECT_EQ(option.threads, 5);
  EXPECT_EQ(option.reason, "--threads");
  ThreadChoice openblas = chooseThreads(0, 2, 2, "8", "1");
  EXPECT_EQ(openblas.threads, 0); // OpenBLAS reads its variable itself
  EXPECT_EQ(openblas.reason, "OPENBLAS_NUM_THREADS");
  EXPECT_EQ(chooseThreads(0, 2, 2, nullptr, "2").reason, "OMP_NUM_THREADS");
  // Empty or malformed values are not a choice.
  EXPECT_EQ(chooseThreads(0, 8, 2, "", "x").threads, 4);
  EXPECT_EQ(chooseThreads(0, 8, 2, "0", nullptr).threads, 4);
}

TEST(ThreadsTest, CpusComeFromTheAffinityMask) {
  EXPECT_GE(availableCpus(), 1);
}

TEST(ThreadsTest, TheGemmKernelsSayWhoChoseThem) {
  EXPECT_EQ(describeGemmKernels("Cooperlake", nullptr),
            "OpenBLAS kernels Cooperlake");
  EXPECT_EQ(describeGemmKernels("Haswell", "Haswell"),
            "OpenBLAS kernels Haswell (as OPENBLAS_CORETYPE says)");
  EXPECT_EQ(describeGemmKernels("Zen", ""), "OpenBLAS kernels Zen");
  // No OpenBLAS in the process: nothing to say.
  EXPECT_EQ(describeGemmKernels(nullptr, "Haswell"), "");
  EXPECT_EQ(describeGemmKernels("", nullptr), "");
}
