//===- StableHLOToTosa.cpp - The stablehlo-to-tosa pass -------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The pass shell: TOSA, func, arith and tensor are legal, stablehlo and chlo
// are not, and the patterns come from the populate functions of each op
// family. Dynamic shapes are rejected first, at the operation that has one;
// after the conversion, tiles that TOSA broadcasting makes redundant go.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"
#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pipewave {
#define GEN_PASS_DEF_STABLEHLOTOTOSA
#include "pipewave/Conversion/StableHLOToTosa/Passes.h.inc"
} // namespace pipewave

using namespace mlir;

namespace {

bool isStatic(Type t) {
  auto shaped = dyn_cast<ShapedType>(t);
  return !shaped || shaped.hasStaticShape();
}

/// Emits an error at every stablehlo/chlo operation (or function) with a
/// dynamic or unranked tensor type.
LogicalResult checkStaticShapes(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      for (Type t : func.getFunctionType().getInputs())
        if (!isStatic(t)) {
          func.emitError() << "dynamic shapes are not supported: argument of "
                              "type "
                           << t << " (export with static shapes)";
          ok = false;
          break;
        }
      return;
    }
    if (dialect != "stablehlo" && dialect != "chlo")
      return;
    for (Type t : op->getResultTypes())
      if (!isStatic(t)) {
        op->emitError() << "dynamic shapes are not supported: '"
                        << op->getName() << "' has a result of type " << t;
        ok = false;
        return;
      }
  });
  return success(ok);
}

struct StablehloToTosa : pipewave::impl::StablehloToTosaBase<StablehloToTosa> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkStaticShapes(module)))
      return signalPassFailure();
    ConversionTarget target(getContext());
    target.addLegalDialect<tosa::TosaDialect, func::FuncDialect,
                           arith::ArithDialect, tensor::TensorDialect>();
    target.addIllegalDialect<pipewave::stablehlo::StableHLODialect,
                             pipewave::chlo::ChloDialect>();
    RewritePatternSet patterns(&getContext());
    pipewave::populateStablehloToTosaPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    RewritePatternSet cleanup(&getContext());
    pipewave::populateStablehloToTosaCleanupPatterns(cleanup);
    if (failed(applyPatternsGreedily(module, std::move(cleanup))))
      signalPassFailure();
  }
};

} // namespace

void pipewave::populateStablehloToTosaPatterns(RewritePatternSet &patterns) {
  populateStablehloElementwiseToTosaPatterns(patterns);
  populateStablehloConstantToTosaPatterns(patterns);
  populateStablehloDataMovementToTosaPatterns(patterns);
  populateStablehloGatherToTosaPatterns(patterns);
  populateStablehloDotGeneralToTosaPatterns(patterns);
  populateStablehloReduceToTosaPatterns(patterns);
}
