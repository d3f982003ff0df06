//===- ScheduleRegistryTest.cpp - One table drives every schedule user ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The schedule registry is the only place that knows the families: a family
// added at run time is accepted by pipe-schedule, tried by schedule=auto and
// listed in the docs table, with no other change.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"
#include "pipewave/Schedule/Registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace pipewave::schedule;

namespace {

/// GPipe under another name, with a shape option nobody else has.
ScheduleFamily dummyFamily() {
  ScheduleFamily family;
  family.name = "dummy-gpipe";
  family.aliases = {"dummy"};
  family.summary = "GPipe again (a test family)";
  family.build = [](const FamilyBuildArgs &args) {
    return buildGPipe(args.numStages, args.numMicrobatches, args.forwardOnly);
  };
  family.bubble = [](int ranks, int, int microbatches) {
    return (ranks - 1.0) / (microbatches + ranks - 1.0);
  };
  return family;
}

/// Registers the dummy family for one test.
struct ScopedDummy {
  ScopedDummy() {
    EXPECT_TRUE(ScheduleRegistry::instance().add(dummyFamily()));
  }
  ~ScopedDummy() { ScheduleRegistry::instance().remove("dummy-gpipe"); }
};

/// Runs `pipeline` (passes on the module) on examples/mlp.mlir; the printed
/// module, or "" with the diagnostics in `diagnostics`.
std::string runOnMlp(StringRef pipeline, std::string &diagnostics) {
  DialectRegistry registry;
  registerAllDialects(registry);
  pipewave::registerAllDialects(registry);
  MLIRContext context(registry);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      PIPEWAVE_SOURCE_DIR "/examples/mlp.mlir", &context);
  if (!module)
    return "";
  PassManager pm(&context);
  if (failed(parsePassPipeline(pipeline, pm)) || failed(pm.run(*module)))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

class ScheduleRegistryTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { pipewave::registerAllPasses(); }
};

TEST_F(ScheduleRegistryTest, BuiltinsInOrder) {
  const ScheduleRegistry &registry = ScheduleRegistry::instance();
  EXPECT_EQ(registry.names(), "gpipe, 1f1b, interleaved, hanayo, zb-h1, zb-v");
  EXPECT_EQ(registry.lookup("zbv"), registry.lookup("zb-v"));
  EXPECT_EQ(registry.lookup("interleaved-1f1b")->name, "interleaved");
  EXPECT_TRUE(registry.lookup("zb-h1")->splitBackward);
  EXPECT_FALSE(registry.lookup("hanayo")->splitBackward);
  EXPECT_EQ(registry.lookup("nope"), nullptr);
  EXPECT_EQ(registry.familiesWithOption("chunks"), "interleaved");
  // A taken name or alias is refused.
  ScheduleFamily clash = dummyFamily();
  clash.aliases = {"zbv"};
  EXPECT_FALSE(ScheduleRegistry::instance().add(clash));
}

TEST_F(ScheduleRegistryTest, AddedFamilyReachesPipeSchedule) {
  ScopedDummy dummy;
  std::string diagnostics;
  std::string text = runOnMlp(
      "pipe-train{num-stages=2 schedule=dummy microbatches=2}", diagnostics);
  ASSERT_NE(text, "") << diagnostics;
  EXPECT_NE(text.find("sched.program \"dummy-gpipe\" stages 2 microbatches 2"),
            std::string::npos)
      << text;
  // And the unknown-schedule error lists it.
  runOnMlp("pipe-train{num-stages=2 schedule=nope}", diagnostics);
  EXPECT_NE(diagnostics.find("expected gpipe, 1f1b, interleaved, hanayo, "
                             "zb-h1, zb-v, dummy-gpipe, file or auto"),
            std::string::npos)
      << diagnostics;
}

TEST_F(ScheduleRegistryTest, AddedFamilyReachesAuto) {
  ScopedDummy dummy;
  std::string diagnostics;
  std::string text = runOnMlp(
      "pipe-train{num-stages=2 schedule=auto device=cpu}", diagnostics);
  ASSERT_NE(text, "") << diagnostics;
  EXPECT_NE(diagnostics.find("dummy-gpipe"), std::string::npos) << diagnostics;
}

TEST_F(ScheduleRegistryTest, AddedFamilyReachesDocsTable) {
  EXPECT_EQ(familyTable().find("| dummy-gpipe |"), std::string::npos);
  ScopedDummy dummy;
  std::string table = familyTable();
  // GPipe's numbers under the new name, at 4 ranks and 8 microbatches.
  EXPECT_NE(table.find("| dummy-gpipe |  | 4 | 4 | 8 | 0.2727 | 0.2727 |"),
            std::string::npos)
      << table;
}

} // namespace
