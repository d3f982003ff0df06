//===- ModelCheckTest.cpp - Validation of malformed pw_models -------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/ModelCheck.h"

#include "TestModel.h"
#include "TestUtil.h"

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

ModelConfig twoStages() {
  ModelConfig c;
  c.stages = c.ranks = 2;
  c.microbatches = 4;
  return c;
}

std::string errorOf(const pw_model &model) {
  try {
    validateModel(model);
  } catch (const Error &error) {
    EXPECT_EQ(error.exitCode, ExitBadModel);
    return error.what();
  }
  return "";
}

} // namespace

TEST(ModelCheckTest, AcceptsTheTestModels) {
  EXPECT_EQ(errorOf(*ArithmeticModel(twoStages()).get()), "");
  EXPECT_EQ(outputRank(*ArithmeticModel(twoStages()).get()), 1);
}

TEST(ModelCheckTest, RejectsAbiMismatch) {
  ArithmeticModel model(twoStages());
  model.mutableModel()->abi_version = 99;
  EXPECT_NE(errorOf(*model.get()).find("compiled for runtime ABI version 99"),
            std::string::npos);
}

TEST(ModelCheckTest, RejectsNegativeWorkspaces) {
  ArithmeticModel model(twoStages());
  const_cast<pw_stage *>(&model.get()->stages[1])->forward_workspace = -64;
  EXPECT_NE(errorOf(*model.get()).find("stage 1 has a negative workspace size"),
            std::string::npos)
      << errorOf(*model.get());
}

TEST(ModelCheckTest, RejectsInconsistentShapes) {
  ArithmeticModel model(twoStages());
  // Stage 0 argument 0 claims the whole batch instead of a microbatch.
  auto *arg = const_cast<pw_tensor_info *>(&model.get()->stages[0].args[0]);
  static const int64_t wrong[] = {16, 8};
  arg->shape = wrong;
  EXPECT_NE(errorOf(*model.get())
                .find("stage 0 argument 0 is f32 [16, 8] but "
                      "the microbatch of 'x' is f32 [4, 8]"),
            std::string::npos)
      << errorOf(*model.get());
}

TEST(ModelCheckTest, RejectsActionsOnStagesTheRankDoesNotHold) {
  ArithmeticModel model(twoStages());
  auto *action = const_cast<pw_action *>(&model.get()->ranks[0].actions[0]);
  action->stage = 1;
  EXPECT_NE(errorOf(*model.get()).find("stage 1 is not held by rank 0"),
            std::string::npos);
}

TEST(ModelCheckTest, TrainingActionsNeedABackward) {
  TrainConfig c;
  TrainModel training(c);
  EXPECT_EQ(errorOf(*training.get()), "");
  // A training program on a binary compiled for inference.
  training.mutableModel()->forward_only = 1;
  std::string error = errorOf(*training.get());
  EXPECT_NE(error.find("has no backward function: this binary was compiled "
                       "without training (forward-only)"),
            std::string::npos)
      << error;
  training.mutableModel()->forward_only = 0;
  for (int s = 0; s < 2; ++s)
    const_cast<pw_stage &>(training.get()->stages[s]).backward = nullptr;
  error = errorOf(*training.get());
  EXPECT_NE(error.find("stage 0 of a training model has neither a backward "
                       "nor a backward_input/backward_weight pair"),
            std::string::npos)
      << error;
}

TEST(ModelCheckTest, SplitBackwardActionsNeedTheSplitFunctions) {
  TrainConfig c;
  c.schedule = "zb-h1";
  TrainModel model(c);
  EXPECT_EQ(errorOf(*model.get()), "");
  auto &stage = const_cast<pw_stage &>(model.get()->stages[1]);
  stage.backward_input = nullptr;
  stage.backward_weight = nullptr;
  EXPECT_NE(errorOf(*model.get()).find("stage 1 has no split backward"),
            std::string::npos)
      << errorOf(*model.get());

  TrainConfig onlySplit;
  onlySplit.split = true;
  onlySplit.noWholeBackward = true;
  TrainModel b(onlySplit); // 1F1B uses B actions.
  EXPECT_NE(errorOf(*b.get()).find("has no backward function (it was "
                                   "compiled with the split backward"),
            std::string::npos)
      << errorOf(*b.get());
}

TEST(ModelCheckTest, RejectsBadWeightStashSources) {
  TrainConfig c;
  c.schedule = "zb-h1";
  TrainModel model(c);
  ASSERT_EQ(errorOf(*model.get()), "");
  const pw_stage &stage = model.get()->stages[1];
  auto *sources = const_cast<int32_t *>(stage.wstash_source);
  ASSERT_NE(sources, nullptr);
  int32_t h0 = sources[1];
  // Past the backward's arguments (args, stash, d_res).
  sources[1] = 1000;
  EXPECT_NE(errorOf(*model.get())
                .find("stage 1 wstash_source[1] = 1000 is neither -1 nor a "
                      "backward argument index"),
            std::string::npos)
      << errorOf(*model.get());
  // The i32 count c, not the f32 [rows, F] h.
  sources[1] = h0 + 1;
  EXPECT_NE(errorOf(*model.get())
                .find("stage 1 wstash_source[1] = " + std::to_string(h0 + 1) +
                      ": that argument's shape or dtype is not the weight "
                      "stash value's"),
            std::string::npos)
      << errorOf(*model.get());
  sources[1] = h0;
  EXPECT_EQ(errorOf(*model.get()), "");
}

TEST(ModelCheckTest, RejectsBadTrainingModels) {
  {
    // The loss must come first, with a gradient.
    TrainModel model(TrainConfig{});
    const_cast<int32_t *>(model.get()->stages[1].result_has_grad)[0] = 0;
    EXPECT_NE(errorOf(*model.get())
                  .find("a training model's first output is "
                        "its loss"),
              std::string::npos)
        << errorOf(*model.get());
  }
  {
    // A gradient for an integer result.
    TrainModel model(TrainConfig{});
    const_cast<int32_t *>(model.get()->stages[0].result_has_grad)[1] = 1;
    EXPECT_NE(errorOf(*model.get())
                  .find("stage 0 result 1 is i32 but marked "
                        "as having a gradient"),
              std::string::npos)
        << errorOf(*model.get());
  }
  {
    // grad_args naming a data input.
    TrainModel model(TrainConfig{});
    const_cast<int32_t *>(model.get()->stages[0].grad_args)[0] = 0;
    EXPECT_NE(errorOf(*model.get())
                  .find("is a data input, which gets no "
                        "gradient"),
              std::string::npos)
        << errorOf(*model.get());
  }
  {
    // A trained parameter shared by two stages (tied weights).
    TrainModel model(TrainConfig{});
    const_cast<int32_t *>(model.get()->stages[1].arg_index)[0] = 2; // w0
    EXPECT_NE(errorOf(*model.get())
                  .find("parameter 'w0' is an argument of "
                        "stages 0 and 1"),
              std::string::npos)
        << errorOf(*model.get());
    EXPECT_EQ(parameterHolders(*model.get(), 2), (std::vector<int>{0, 1}));
    // Without the tied all-reduce that keeps its copies equal.
    EXPECT_NE(errorOf(*model.get())
                  .find("(a tied parameter), but rank 0, which holds stage "
                        "0, has no tied all-reduce of it"),
              std::string::npos)
        << errorOf(*model.get());
  }
}

TEST(ModelCheckTest, ChecksReplicas) {
  TrainConfig c;
  c.replicas = 2;
  c.microbatches = 2;
  TrainModel model(c);
  EXPECT_EQ(errorOf(*model.get()), "");
  EXPECT_EQ(numReplicas(*model.get()), 2);
  EXPECT_EQ(replicaOf(*model.get(), 3), 1);
  EXPECT_EQ(stageHolders(*model.get(), 1), (std::vector<int>{1, 3}));
  // Input 2 (w0) is stage 0's parameter: replicas 0 and 2 hold it, and
  // checkpoints store it in rank 0's file. It is not stage state.
  EXPECT_EQ(parameterHolders(*model.get(), 2), (std::vector<int>{0, 2}));
  EXPECT_FALSE(isStageState(*model.get(), 2));
  // Microbatch shapes: 16 rows / (2 replicas x 2 microbatches).
  EXPECT_EQ(model.get()->stages[0].args[0].shape[0], 4);
  // An optimizer step without the all-reduce would let replicas drift.
  auto *actions = const_cast<pw_action *>(model.get()->ranks[2].actions);
  int n = model.get()->ranks[2].num_actions;
  for (int i = 0; i < n; ++i)
    if (actions[i].kind == PW_ACT_ALLREDUCE)
      actions[i].kind = PW_ACT_OPTIMIZER;
  EXPECT_NE(errorOf(*model.get())
                .find("stage 0 has 2 replicas but no "
                      "all-reduce of its gradients before "
                      "the optimizer step"),
            std::string::npos)
      << errorOf(*model.get());
}

TEST(ModelCheckTest, RejectsUnevenReplicas) {
  TrainConfig c;
  c.replicas = 2;
  c.microbatches = 2;
  TrainModel model(c);
  // Rank 3 claims stage 0 too: stage 0 has 3 holders, stage 1 only 1.
  auto &program = const_cast<pw_rank_program &>(model.get()->ranks[3]);
  static const int32_t stage0[] = {0};
  program.stages = stage0;
  EXPECT_NE(errorOf(*model.get())
                .find("stage 1 is held by 1 rank(s) but "
                      "stage 0 by 3: every stage needs the "
                      "same number of data-parallel replicas"),
            std::string::npos)
      << errorOf(*model.get());
}

TEST(ModelCheckTest, DescribesActions) {
  pw_action recv = {PW_ACT_RECV, 1, 3, PW_ACTIVATION, 0, 3, 0, 0};
  EXPECT_EQ(describeAction(recv), "recv act stage 1 mb 3 from rank 0");
  EXPECT_EQ(traceName(recv), "recv act s1 mb3");
  pw_action forward = {PW_ACT_FORWARD, 2, 0, 0, -1, -1, 0, 0};
  EXPECT_EQ(describeAction(forward), "F stage 2 mb 0");
  EXPECT_EQ(traceName(forward), "F s2 mb0");
  pw_action tied = {PW_ACT_TIED_ALLREDUCE, 0, -1, 0, -1, -1, 0, 2, 5};
  EXPECT_EQ(describeAction(tied), "tied input 5 stage 0");
  EXPECT_EQ(traceName(tied), "tied input5 s0");
}
