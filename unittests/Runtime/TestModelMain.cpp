//===- TestModelMain.cpp - The test model as a runnable binary ------------===//
//
// Part of the pipewave project.
//
// What a compiled model's main looks like: pw_get_model() plus a main that
// hands over to the runtime. The configuration comes from compile
// definitions (one executable per configuration).
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

using namespace pipewave::runtime::test;

namespace {

ArithmeticModel &theModel() {
  static ArithmeticModel model([] {
    ModelConfig config;
    config.stages = PW_TEST_STAGES;
    config.ranks = PW_TEST_RANKS;
    config.microbatches = PW_TEST_MICROBATCHES;
    config.batch = 16;
    config.features = 8;
    config.placement = Placement::PW_TEST_PLACEMENT;
    config.schedule = PW_TEST_SCHEDULE;
    return config;
  }());
  return model;
}

} // namespace

extern "C" const pw_model *pw_get_model(void) { return theModel().get(); }

int main(int argc, char **argv) {
  return pw_runtime_main(argc, argv, pw_get_model());
}
