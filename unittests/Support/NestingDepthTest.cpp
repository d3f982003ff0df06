//===- NestingDepthTest.cpp - Tests of the bracket nesting check ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Support/NestingDepth.h"

#include <gtest/gtest.h>

#include <string>

using namespace pipewave;

namespace {

TEST(NestingDepthTest, FindsTheFirstBracketPastTheLimit) {
  // Depth 3 at column 3 of line 2.
  std::optional<TextPosition> at = findDeepNesting("x\n(([(", 2);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->line, 2u);
  EXPECT_EQ(at->column, 3u);
  // Exactly the limit is fine; closed brackets do not add up.
  EXPECT_FALSE(findDeepNesting("(([]))", 3));
  EXPECT_FALSE(findDeepNesting("()()()()()()", 1));
  // Angle brackets count: tensor<tensor<...>>.
  EXPECT_TRUE(findDeepNesting("<<<", 2));
}

TEST(NestingDepthTest, ArrowsStringsAndCommentsDoNotCount) {
  // "->" does not close an angle bracket.
  EXPECT_TRUE(findDeepNesting("(<a->b(", 2));
  EXPECT_FALSE(findDeepNesting("(<a>b(", 2));
  // Brackets in string literals (escaped quotes included) and in comments.
  EXPECT_FALSE(findDeepNesting(R"(x = "((((\"((((" )", 2));
  EXPECT_FALSE(findDeepNesting("// ((((((\n(x)", 2));
  // A comment ends at its line.
  EXPECT_TRUE(findDeepNesting("// x\n(((", 2));
}

TEST(NestingDepthTest, ErrorNamesFileLineAndColumn) {
  std::string deep(kMaxMlirNesting + 1, '(');
  EXPECT_EQ(deepNestingError("func.func @f()", "m.mlir"), "");
  std::string error = deepNestingError("// ok\n" + deep, "m.mlir");
  EXPECT_EQ(error.rfind("m.mlir:2:" + std::to_string(kMaxMlirNesting + 1) +
                            ": brackets nest more than " +
                            std::to_string(kMaxMlirNesting) + " deep here",
                        0),
            0u)
      << error;
}

} // namespace
