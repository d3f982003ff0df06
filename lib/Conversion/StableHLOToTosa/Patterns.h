//===- Patterns.h - Pattern shell of stablehlo-to-tosa ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// `Lower<Op>`: a conversion pattern that replaces one stablehlo/chlo
// operation by the single value a build function returns. A build function
// that cannot convert its operation emits an error on it and returns null.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_CONVERSION_STABLEHLOTOTOSA_PATTERNS_H
#define PIPEWAVE_LIB_CONVERSION_STABLEHLOTOTOSA_PATTERNS_H

#include "TosaBuilder.h"

#include "mlir/Transforms/DialectConversion.h"

namespace pipewave::shlo {

template <typename SrcOp>
class Lower : public mlir::OpConversionPattern<SrcOp> {
public:
  using Adaptor = typename SrcOp::Adaptor;
  using BuildFn = mlir::Value (*)(TosaBuilder &, SrcOp, Adaptor);

  Lower(mlir::MLIRContext *ctx, BuildFn build)
      : mlir::OpConversionPattern<SrcOp>(ctx), build(build) {}

  mlir::LogicalResult
  matchAndRewrite(SrcOp op, Adaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    TosaBuilder tb(rewriter, op.getLoc());
    mlir::Value v = build(tb, op, adaptor);
    if (!v)
      return rewriter.notifyMatchFailure(op, "cannot convert");
    rewriter.replaceOp(op, v);
    return mlir::success();
  }

private:
  BuildFn build;
};

template <typename SrcOp>
void addLowering(mlir::RewritePatternSet &patterns,
                 typename Lower<SrcOp>::BuildFn build) {
  patterns.add<Lower<SrcOp>>(patterns.getContext(), build);
}

} // namespace pipewave::shlo

#endif // PIPEWAVE_LIB_CONVERSION_STABLEHLOTOTOSA_PATTERNS_H
