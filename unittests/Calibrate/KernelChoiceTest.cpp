//===- KernelChoiceTest.cpp - A matmul class's kernel from its timings ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "KernelChoice.h"

#include "gtest/gtest.h"

using namespace pipewave;
using pipewave::calibrate::chooseKernel;

namespace {

sim::MatmulKernelPoint timing(double vectorSeconds, double blasSeconds) {
  sim::MatmulKernelPoint point;
  point.matmulClass = "tn-small";
  point.vectorSeconds = vectorSeconds;
  point.blasSeconds = blasSeconds;
  return point;
}

} // namespace

// One shape: the faster kernel; a tie goes to blas.
TEST(KernelChoiceTest, OneShapeTakesTheFasterKernel) {
  EXPECT_EQ(chooseKernel({timing(1.0, 2.0)}), "vector");
  EXPECT_EQ(chooseKernel({timing(2.0, 1.0)}), "blas");
  EXPECT_EQ(chooseKernel({timing(1.0, 1.0)}), "blas");
}

// The measured case: vector 8% faster at the representative shape
// (1.72 against 1.87 us) but 3x slower at the weight gradient's (4.9
// against 1.6 us): blas, whose worst slowdown is 1.09, not vector's 3.06.
TEST(KernelChoiceTest, WorstSlowdownOverTheShapesDecides) {
  EXPECT_EQ(chooseKernel({timing(1.72e-6, 1.87e-6), timing(4.9e-6, 1.6e-6)}),
            "blas");
  // Vector a little slower at one shape and much faster at the other.
  EXPECT_EQ(chooseKernel({timing(1.1e-6, 1e-6), timing(1e-6, 3e-6)}), "vector");
}

// A shape whose timings are missing (0) does not decide.
TEST(KernelChoiceTest, UntimedShapesAreLeftOut) {
  EXPECT_EQ(chooseKernel({timing(0, 0), timing(1.0, 2.0)}), "vector");
  EXPECT_EQ(chooseKernel({}), "blas");
}
