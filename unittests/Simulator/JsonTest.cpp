//===- JsonTest.cpp - Tests of the minimal JSON reader --------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Support/Json.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace pipewave::json;

namespace {

TEST(JsonTest, ParsesNestedDocument) {
  std::string error;
  auto value = parseJson(
      R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "x\"y\\n\u00e9"}} )",
      &error);
  ASSERT_TRUE(value) << error;
  ASSERT_TRUE(value->isObject());
  const JsonValue *a = value->find("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->array.size(), 5u);
  EXPECT_EQ(a->array[0].number, 1);
  EXPECT_EQ(a->array[1].number, -2500);
  EXPECT_TRUE(a->array[2].boolean);
  EXPECT_FALSE(a->array[3].boolean);
  EXPECT_TRUE(a->array[4].isNull());
  const JsonValue *c = value->find("b")->find("c");
  ASSERT_TRUE(c && c->isString());
  EXPECT_EQ(c->string, "x\"y\\n\xc3\xa9");
  EXPECT_EQ(value->find("missing"), nullptr);
}

TEST(JsonTest, RejectsMalformedDocuments) {
  for (const char *text :
       {"", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "\"abc",
        "[1] 2", "tru", "{\"a\":\"\x01\"}", "\"\\x\"", "-", "[1e]"}) {
    std::string error;
    EXPECT_FALSE(parseJson(text, &error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

// A number beyond the range of a double is an error, not infinity (found by
// the device fuzzer: "2e3990" made an infinite memory bandwidth that
// toJson() printed as null).
TEST(JsonTest, RejectsNumbersOutOfRange) {
  std::string error;
  EXPECT_FALSE(parseJson("{\"a\": 2e3990}", &error));
  EXPECT_EQ(error, "offset 6: number out of range: 2e3990");
  EXPECT_FALSE(parseJson("[-1e400]", &error));
  EXPECT_FALSE(parseJson(std::string(400, '9'), &error));
  EXPECT_TRUE(parseJson("[1e308, 1e-400]", &error)) << error;
}

TEST(JsonTest, QuoteAndNumberRoundTrip) {
  std::string text = "tab\there \"quoted\" back\\slash \x01";
  auto parsed = parseJson(jsonQuote(text));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->string, text);
  for (double value : {0.0, 1.0, 0.1, 1.0 / 3, 6.02214076e23, -1e-300}) {
    auto number = parseJson(jsonNumber(value));
    ASSERT_TRUE(number) << jsonNumber(value);
    EXPECT_EQ(number->number, value);
  }
  EXPECT_EQ(jsonNumber(std::nan("")), "null");
  EXPECT_EQ(jsonNumber(INFINITY), "null");
}

} // namespace
