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

TEST(ModelCheckTest, RejectsInconsistentShapes) {
  ArithmeticModel model(twoStages());
  // Stage 0 argument 0 claims the whole batch instead of a microbatch.
  auto *arg = const_cast<pw_tensor_info *>(&model.get()->stages[0].args[0]);
  static const int64_t wrong[] = {16, 8};
  arg->shape = wrong;
  EXPECT_NE(errorOf(*model.get()).find("stage 0 argument 0 is f32 [16, 8] but "
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
  ModelConfig c = twoStages();
  c.training = true;
  ArithmeticModel training(c);
  EXPECT_NE(errorOf(*training.get()).find("training steps are not supported"),
            std::string::npos);
  for (int s = 0; s < 2; ++s)
    const_cast<pw_stage &>(training.get()->stages[s]).backward = nullptr;
  std::string error = errorOf(*training.get());
  EXPECT_NE(error.find("this binary was compiled without training "
                       "(forward-only)"),
            std::string::npos)
      << error;
}

TEST(ModelCheckTest, DescribesActions) {
  pw_action recv = {PW_ACT_RECV, 1, 3, PW_ACTIVATION, 0, 3, 0, 0};
  EXPECT_EQ(describeAction(recv), "recv act stage 1 mb 3 from rank 0");
  EXPECT_EQ(traceName(recv), "recv act s1 mb3");
  pw_action forward = {PW_ACT_FORWARD, 2, 0, 0, -1, -1, 0, 0};
  EXPECT_EQ(describeAction(forward), "F stage 2 mb 0");
  EXPECT_EQ(traceName(forward), "F s2 mb0");
}
