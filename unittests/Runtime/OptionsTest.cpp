//===- OptionsTest.cpp - Command-line parsing -----------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Options.h"

#include "TestModel.h"
#include "TestUtil.h"

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "model");
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  return parseOptions(static_cast<int>(argv.size()), argv.data());
}

} // namespace

TEST(OptionsTest, ParsesEveryOption) {
  Options o = parse({"--data", "x=a.npy", "--data=y=b.npy", "--out", "dir",
                     "--init=p.safetensors", "--seed", "7", "--steps=3",
                     "--trace", "t.json", "--timeout", "2.5", "--expect",
                     "y=e.npy", "--tolerance", "0", "--spare-slots", "0"});
  ASSERT_EQ(o.data.size(), 2u);
  EXPECT_EQ(o.data[1].first, "y");
  EXPECT_EQ(o.data[1].second, "b.npy");
  EXPECT_EQ(o.outDir, "dir");
  EXPECT_EQ(o.initFile, "p.safetensors");
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.steps, 3);
  EXPECT_EQ(o.traceFile, "t.json");
  EXPECT_DOUBLE_EQ(o.timeout, 2.5);
  EXPECT_EQ(o.expect[0].second, "e.npy");
  EXPECT_EQ(o.tolerance, 0.0);
  EXPECT_EQ(o.spareSlots, 0);
  EXPECT_TRUE(parse({"--print-ranks"}).printRanks);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_EQ(parse({}).timeout, 20.0);
}

TEST(OptionsTest, RejectsBadCommandLines) {
  EXPECT_NE(PW_ERROR_OF(parse({"--bogus"})).find("unknown option '--bogus'"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"extra"})).find("unexpected argument 'extra'"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--data", "x.npy"}))
                .find("--data expects NAME=FILE, got 'x.npy'"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--steps", "0"})).find("integer >= 1"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--timeout", "-1"})).find("non-negative"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--out"})).find("--out needs a value"),
            std::string::npos);
}

TEST(OptionsTest, HelpListsInputsAndOutputs) {
  ModelConfig c;
  ArithmeticModel model(c);
  std::string text = usage("mlp", *model.get());
  EXPECT_NE(text.find("pipewave-run -n 2 mlp"), std::string::npos) << text;
  EXPECT_NE(text.find("    x: f32 [16, 8]"), std::string::npos);
  EXPECT_NE(text.find("    p1: f32 [8]"), std::string::npos);
  EXPECT_NE(text.find("    total: f32 []"), std::string::npos);
}
