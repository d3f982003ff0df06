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
  Options o = parse({"--data",      "x=a.npy",   "--data=y=b.npy",
                     "--out",       "dir",       "--init=p.safetensors",
                     "--seed",      "7",         "--steps=3",
                     "--trace",     "t.json",    "--timeout",
                     "2.5",         "--expect",  "y=e.npy",
                     "--tolerance", "0",         "--spare-slots",
                     "0",           "--threads", "3"});
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
  EXPECT_EQ(o.threads, 3);
  EXPECT_EQ(parse({}).threads, 0);
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
  EXPECT_NE(PW_ERROR_OF(parse({"--threads", "0"})).find("integer >= 1"),
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

TEST(OptionsTest, ParsesTrainingOptions) {
  Options o =
      parse({"--optimizer", "adamw", "--lr=0.001", "--betas", "0.8,0.99",
             "--eps", "1e-6", "--log-json", "log.jsonl", "--checkpoint-dir",
             "ck", "--checkpoint-every", "5", "--resume"});
  EXPECT_EQ(o.optimizer.kind, OptimizerKind::AdamW);
  EXPECT_EQ(o.optimizer.lr, 0.001);
  EXPECT_EQ(o.optimizer.beta1, 0.8);
  EXPECT_EQ(o.optimizer.beta2, 0.99);
  EXPECT_EQ(o.optimizer.eps, 1e-6);
  // AdamW's default weight decay, as torch.optim.AdamW.
  EXPECT_EQ(o.optimizer.weightDecay, 0.01);
  EXPECT_EQ(o.logJson, "log.jsonl");
  EXPECT_EQ(o.checkpointDir, "ck");
  EXPECT_EQ(o.checkpointEvery, 5);
  EXPECT_TRUE(o.resume);
  EXPECT_EQ(o.trainingOptions.size(), 4u);

  Options d = parse({});
  EXPECT_EQ(d.optimizer.kind, OptimizerKind::SGD);
  EXPECT_EQ(d.optimizer.lr, 0.01);
  EXPECT_EQ(d.optimizer.weightDecay, 0.0);
  EXPECT_TRUE(d.trainingOptions.empty());

  // A step with a non-finite value stops the run unless told to skip it.
  EXPECT_EQ(d.onNonfinite, NonfinitePolicy::Stop);
  Options skip = parse({"--on-nonfinite", "skip"});
  EXPECT_EQ(skip.onNonfinite, NonfinitePolicy::Skip);
  EXPECT_EQ(skip.trainingOptions, std::vector<std::string>{"--on-nonfinite"});
  EXPECT_EQ(parse({"--on-nonfinite=stop"}).onNonfinite, NonfinitePolicy::Stop);

  Options s = parse({"--momentum", "0.9", "--nesterov", "--weight-decay", "0"});
  EXPECT_TRUE(s.optimizer.nesterov);
  EXPECT_EQ(s.optimizer.momentum, 0.9);
  EXPECT_EQ(parse({"--optimizer", "adamw", "--weight-decay", "0"})
                .optimizer.weightDecay,
            0.0);
}

TEST(OptionsTest, RejectsBadTrainingOptions) {
  EXPECT_NE(PW_ERROR_OF(parse({"--optimizer", "lamb"}))
                .find("--optimizer expects sgd, adam or adamw, got 'lamb'"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--nesterov"}))
                .find("--nesterov needs a --momentum above 0"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--optimizer", "adam", "--momentum", "0.9"}))
                .find("apply to --optimizer sgd"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--betas", "0.9"})).find("--betas expects"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--betas", "0.9,1.0"})).find("[0, 1)"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--checkpoint-every", "3"}))
                .find("--checkpoint-every needs --checkpoint-dir DIR"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--checkpoint-on-signal"}))
                .find("--checkpoint-on-signal needs --checkpoint-dir DIR"),
            std::string::npos);
  EXPECT_TRUE(parse({"--checkpoint-on-signal", "--checkpoint-dir", "ck"})
                  .checkpointOnSignal);
  EXPECT_NE(PW_ERROR_OF(parse({"--on-nonfinite", "ignore"}))
                .find("--on-nonfinite expects stop or skip, got 'ignore'"),
            std::string::npos);
  EXPECT_NE(PW_ERROR_OF(parse({"--resume=1"})).find("--resume takes no value"),
            std::string::npos);
}

TEST(OptionsTest, CudaGraph) {
  EXPECT_FALSE(parse({}).cudaGraph);
  EXPECT_TRUE(parse({"--cuda-graph"}).cudaGraph);
  EXPECT_NE(PW_ERROR_OF(parse({"--cuda-graph=1"}))
                .find("--cuda-graph takes no value"),
            std::string::npos);
}

TEST(OptionsTest, SendsInListOrder) {
  EXPECT_FALSE(parse({}).sendsInListOrder);
  EXPECT_TRUE(parse({"--sends-in-list-order"}).sendsInListOrder);
  EXPECT_NE(PW_ERROR_OF(parse({"--sends-in-list-order=1"}))
                .find("--sends-in-list-order takes no value"),
            std::string::npos);
}
