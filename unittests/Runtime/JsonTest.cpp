//===- JsonTest.cpp - Tests of the JSON reader ----------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Json.h"

#include "TestUtil.h"

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

TEST(JsonTest, ParsesNestedValues) {
  JsonValue v = parseJson(
      R"( {"a": [1, -2, 3.5e2, true, false, null], "b": {"s": "x\"\u00e9\n"}} )");
  ASSERT_TRUE(v.isObject());
  const JsonValue *a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->array.size(), 6u);
  EXPECT_TRUE(a->array[0].isInteger);
  EXPECT_EQ(a->array[0].integer, 1);
  EXPECT_EQ(a->array[1].integer, -2);
  EXPECT_FALSE(a->array[2].isInteger);
  EXPECT_DOUBLE_EQ(a->array[2].number, 350.0);
  EXPECT_TRUE(a->array[3].boolean);
  EXPECT_TRUE(a->array[4].isBool());
  EXPECT_FALSE(a->array[4].boolean);
  EXPECT_TRUE(a->array[5].isNull());
  EXPECT_EQ(v.find("b")->find("s")->string, "x\"\xc3\xa9\n");
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(JsonTest, KeepsMemberOrderAndSurrogatePairs) {
  JsonValue v = parseJson(R"({"z": 1, "a": "\ud83d\ude00"})");
  ASSERT_EQ(v.object.size(), 2u);
  EXPECT_EQ(v.object[0].first, "z");
  EXPECT_EQ(v.object[1].second.string, "\xf0\x9f\x98\x80");
}

TEST(JsonTest, RejectsMalformedInputWithOffset) {
  EXPECT_NE(PW_ERROR_OF(parseJson("{\"a\": 1,}", "hdr"))
                .find("hdr: invalid JSON at offset 8"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parseJson("[1 2]")).find("expected ','"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parseJson("\"abc")).find("unterminated string"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parseJson("01")).find("unexpected text"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parseJson("{} x")).find("unexpected text"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parseJson("")).find("unexpected end"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parseJson("\"\\ud800\"")).find("surrogate"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parseJson(std::string(300, '['))).find("nesting"),
            std::string::npos);
}

TEST(JsonTest, QuotesStrings) {
  EXPECT_EQ(jsonQuote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(parseJson(jsonQuote("F s1 mb3 \"x\"")).string, "F s1 mb3 \"x\"");
}
