//===- MatmulChoiceTest.cpp - Tests of the matmul classes and rules -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/MatmulChoice.h"

#include "gtest/gtest.h"

using namespace pipewave;

namespace {

constexpr int kClasses = kNumMatmulLayouts * kNumMatmulShapes;

MatmulKernel kernelOf(const MatmulChoice &choice, const char *name) {
  std::optional<MatmulClass> cls = parseMatmulClass(name);
  EXPECT_TRUE(cls) << name;
  return choice.kernel(cls.value_or(MatmulClass()));
}

TEST(MatmulChoiceTest, ClassifiesShapes) {
  // mlp512 at microbatches of 32: forward, input and weight gradients.
  EXPECT_EQ(classifyMatmulShape(32, 512, 512), MatmulShape::SkinnyM);
  EXPECT_EQ(classifyMatmulShape(512, 512, 32), MatmulShape::SkinnyK);
  EXPECT_EQ(classifyMatmulShape(512, 32, 512), MatmulShape::SkinnyN);
  // The full batch of 256.
  EXPECT_EQ(classifyMatmulShape(256, 512, 512), MatmulShape::Square);
  EXPECT_EQ(classifyMatmulShape(64, 64, 64), MatmulShape::Small);
  EXPECT_EQ(classifyMatmulShape(16, 64, 256), MatmulShape::Small);
  EXPECT_EQ(classifyMatmulShape(64, 64, 65), MatmulShape::Square);
  // Ties: the first of the smallest extents.
  EXPECT_EQ(classifyMatmulShape(8, 8, 8192), MatmulShape::SkinnyM);
  EXPECT_EQ(classifyMatmulShape(8192, 8, 8), MatmulShape::SkinnyN);
  // Every representative shape is in its own class.
  for (MatmulShape shape :
       {MatmulShape::Small, MatmulShape::SkinnyM, MatmulShape::SkinnyN,
        MatmulShape::SkinnyK, MatmulShape::Square}) {
    std::array<int64_t, 3> mnk = representativeShape(shape);
    EXPECT_EQ(classifyMatmulShape(mnk[0], mnk[1], mnk[2]), shape)
        << stringify(shape);
  }
}

TEST(MatmulChoiceTest, NamesRoundTrip) {
  EXPECT_EQ(matmulClassName({MatmulLayout::NT, MatmulShape::SkinnyM}),
            "nt-skinny-m");
  EXPECT_EQ(matmulLayout(true, false), MatmulLayout::TN);
  EXPECT_EQ(matmulLayout(false, true), MatmulLayout::NT);
  EXPECT_EQ(matmulLayout(true, true), MatmulLayout::TT);
  std::optional<MatmulClass> cls = parseMatmulClass("tn-skinny-k");
  ASSERT_TRUE(cls);
  EXPECT_EQ(cls->layout, MatmulLayout::TN);
  EXPECT_EQ(cls->shape, MatmulShape::SkinnyK);
  EXPECT_FALSE(parseMatmulClass("tn"));
  EXPECT_FALSE(parseMatmulClass("nn-skinny"));
  EXPECT_FALSE(parseMatmulClass("xx-square"));
  EXPECT_EQ(parseMatmulKernel("vector"), MatmulKernel::Vector);
  EXPECT_FALSE(parseMatmulKernel("fast"));
}

TEST(MatmulChoiceTest, DefaultIsTheMeasuredTable) {
  MatmulChoice choice;
  EXPECT_EQ(choice.count(MatmulKernel::Blas), 7);
  EXPECT_EQ(kernelOf(choice, "nn-square"), MatmulKernel::Vector);
  EXPECT_EQ(kernelOf(choice, "tn-skinny-k"), MatmulKernel::Vector);
  EXPECT_EQ(kernelOf(choice, "nt-skinny-m"), MatmulKernel::Blas);
  EXPECT_EQ(kernelOf(choice, "tn-skinny-n"), MatmulKernel::Blas);
  EXPECT_EQ(kernelOf(choice, "tt-small"), MatmulKernel::Blas);
}

TEST(MatmulChoiceTest, RulesApplyInOrderWithWildcards) {
  MatmulChoice choice;
  std::string error;
  ASSERT_TRUE(choice.apply(
      {"*:vector", "nt-*:blas", "*-small:blas", "nt-small:vector"}, error))
      << error;
  EXPECT_EQ(kernelOf(choice, "nn-square"), MatmulKernel::Vector);
  EXPECT_EQ(kernelOf(choice, "tn-skinny-k"), MatmulKernel::Vector);
  EXPECT_EQ(kernelOf(choice, "nt-skinny-m"), MatmulKernel::Blas);
  EXPECT_EQ(kernelOf(choice, "tn-small"), MatmulKernel::Blas);
  EXPECT_EQ(kernelOf(choice, "nt-small"), MatmulKernel::Vector);
  // 4 nt classes but nt-small, and 3 other small ones: 7 blas.
  EXPECT_EQ(choice.count(MatmulKernel::Blas), 7);
}

TEST(MatmulChoiceTest, RulesSpellOutTheTable) {
  MatmulChoice choice;
  std::string error;
  ASSERT_TRUE(choice.apply({"nn-*:vector", "tn-square:vector"}, error));
  std::vector<std::string> rules = choice.rules();
  ASSERT_EQ(rules.size(), static_cast<size_t>(kClasses));
  EXPECT_EQ(rules.front(), "nn-small:vector");
  EXPECT_EQ(rules.back(), "tt-square:blas");
  // Applied to any table they give this one.
  MatmulChoice other;
  ASSERT_TRUE(other.apply({"*:vector"}, error));
  ASSERT_TRUE(other.apply(rules, error));
  EXPECT_TRUE(other == choice);
}

TEST(MatmulChoiceTest, RejectsMalformedRules) {
  MatmulChoice choice;
  std::string error;
  EXPECT_FALSE(choice.apply({"nn-square"}, error));
  EXPECT_EQ(error, "matmul choice rule 'nn-square': expected CLASS:KERNEL");
  EXPECT_FALSE(choice.apply({"nn-square:fast"}, error));
  EXPECT_EQ(error, "matmul choice rule 'nn-square:fast': the kernel must be "
                   "vector or blas");
  EXPECT_FALSE(choice.apply({"square:blas"}, error));
  EXPECT_EQ(error, "matmul choice rule 'square:blas': expected a class "
                   "LAYOUT-SHAPE or *");
  EXPECT_FALSE(choice.apply({"nn-huge:blas"}, error));
  EXPECT_NE(error.find("unknown class"), std::string::npos);
  EXPECT_FALSE(choice.apply({"xy-*:blas"}, error));
  EXPECT_NE(error.find("'xy-*:blas': unknown class"), std::string::npos);
}

} // namespace
