//===- TrainModelMain.cpp - The training test model as a binary -----------===//
//
// Part of the pipewave project.
//
// A compiled training model's main, for the training test model
// (TestModel.h); the configuration comes from compile definitions (one
// executable per configuration).
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

using namespace pipewave::runtime::test;

namespace {

TrainModel &theModel() {
  static TrainModel model([] {
    TrainConfig config;
    config.layers = 4;
    config.stages = PW_TRAIN_STAGES;
    config.microbatches = PW_TRAIN_MICROBATCHES;
    config.replicas = PW_TRAIN_REPLICAS;
    config.batch = 16;
    config.features = 8;
    config.schedule = PW_TRAIN_SCHEDULE;
    return config;
  }());
  return model;
}

} // namespace

extern "C" const pw_model *pw_get_model(void) { return theModel().get(); }

int main(int argc, char **argv) {
  return pw_runtime_main(argc, argv, pw_get_model());
}
