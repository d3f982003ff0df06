//===- StableHLOToTosa.h - stablehlo/chlo to TOSA ---------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The `stablehlo-to-tosa` pass and its patterns, one `populate...` per op
// family (lib/Conversion/StableHLOToTosa/<Family>.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CONVERSION_STABLEHLOTOTOSA_STABLEHLOTOTOSA_H
#define PIPEWAVE_CONVERSION_STABLEHLOTOTOSA_STABLEHLOTOTOSA_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace pipewave {

#define GEN_PASS_DECL
#include "pipewave/Conversion/StableHLOToTosa/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pipewave/Conversion/StableHLOToTosa/Passes.h.inc"

/// Elementwise operations, compare, select, clamp, convert and chlo.
void populateStablehloElementwiseToTosaPatterns(
    mlir::RewritePatternSet &patterns);
/// constant and iota.
void populateStablehloConstantToTosaPatterns(mlir::RewritePatternSet &patterns);
/// broadcast_in_dim, reshape, transpose, slice, concatenate, pad.
void populateStablehloDataMovementToTosaPatterns(
    mlir::RewritePatternSet &patterns);
/// gather (embedding lookups and take_along_axis).
void populateStablehloGatherToTosaPatterns(mlir::RewritePatternSet &patterns);
/// dot_general.
void populateStablehloDotGeneralToTosaPatterns(
    mlir::RewritePatternSet &patterns);
/// reduce with an add/max/min/mul/and/or body.
void populateStablehloReduceToTosaPatterns(mlir::RewritePatternSet &patterns);

/// After the conversion: drops `tosa.tile`s that only broadcast operands of
/// broadcasting elementwise operations (TOSA broadcasts them).
void populateStablehloToTosaCleanupPatterns(mlir::RewritePatternSet &patterns);

/// Every conversion pattern above (not the cleanup).
void populateStablehloToTosaPatterns(mlir::RewritePatternSet &patterns);

} // namespace pipewave

#endif // PIPEWAVE_CONVERSION_STABLEHLOTOTOSA_STABLEHLOTOTOSA_H
