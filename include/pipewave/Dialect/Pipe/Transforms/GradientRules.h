//===- GradientRules.h - Reverse-mode rules of pipe-autodiff ----*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of `pipe-autodiff` shared between the pass and its gradient
// rules:
//
//  * `GradientEmitter`: what a rule sees while it writes the backward code of
//    one forward operation: the builder, the forward values it may read
//    (`primal`, which stashes or recomputes them as needed) and helpers that
//    create TOSA operations with static shapes and TOSA broadcasting.
//  * `GradientRule` and `GradientRuleTable`: the rules, one per operation
//    name. An active operation (one whose result depends on a differentiated
//    argument and reaches a result of the stage) without a rule is an error.
//  * `buildBackward`: the reverse-mode builder of one stage function.
//
// Rules are split by operation family, one source file each under
// lib/Dialect/Pipe/Transforms/GradientRules/.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_TRANSFORMS_GRADIENTRULES_H
#define PIPEWAVE_DIALECT_PIPE_TRANSFORMS_GRADIENTRULES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace pipewave::pipe::autodiff {

/// Constants of one backward function, deduplicated and kept at the top of
/// its entry block (they have no operands, so they dominate every use).
class ConstantPool {
public:
  explicit ConstantPool(mlir::Block *block) : block(block) {}

  /// A `tosa.const` holding `value`.
  mlir::Value tensor(mlir::Location loc, mlir::DenseElementsAttr value);
  /// A `tosa.const_shape` holding `values`.
  mlir::Value shape(mlir::Location loc, llvm::ArrayRef<int64_t> values);
  /// The results of the constant operation `op` (from the forward function)
  /// in the pool: TOSA constants share the pool's entries, others are
  /// cloned.
  llvm::SmallVector<mlir::Value, 1> materialize(mlir::Operation *op);

private:
  mlir::OpBuilder builderAtTop();

  mlir::Block *block;
  mlir::Operation *last = nullptr;
  llvm::DenseMap<mlir::Attribute, mlir::Value> tensors, shapes;
};

/// The interface between the reverse-mode builder and a gradient rule.
///
/// Every helper creates its operation at the builder's insertion point with
/// the location of the forward operation. Tensor helpers require static
/// shapes. Binary helpers follow TOSA broadcasting (equal ranks; a dimension
/// of size 1 broadcasts), so constants made by `scalarLike` broadcast against
/// any tensor of the same rank.
class GradientEmitter {
public:
  using PrimalFn = std::function<mlir::Value(mlir::Value)>;

  GradientEmitter(mlir::OpBuilder &builder, mlir::Location loc,
                  ConstantPool &constants, PrimalFn primal)
      : builder(builder), loc(loc), constants(constants),
        primalFn(std::move(primal)) {}

  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::Location getLoc() { return loc; }

  /// The value in the backward function of `forward`, an operand or result
  /// of a forward operation: an argument of the stage, a rematerialised
  /// constant, a recomputed value (inside `pipe.recompute`, or a free
  /// reshape) or a stashed value.
  mlir::Value primal(mlir::Value forward) { return primalFn(forward); }

  //===--- Constants
  //-------------------------------------------------------===//

  /// A `tosa.const` holding `value` (hoisted and deduplicated).
  mlir::Value constant(mlir::DenseElementsAttr value);
  /// A splat constant of `type` (float or integer element type).
  mlir::Value splat(mlir::RankedTensorType type, double value);
  /// A splat constant of `like`'s element type and rank whose dimensions are
  /// all 1: it broadcasts against any tensor shaped like `like`.
  mlir::Value scalarLike(mlir::Type like, double value);
  /// An all-zero tensor of `type`.
  mlir::Value zeros(mlir::Type type) {
    return splat(mlir::cast<mlir::RankedTensorType>(type), 0.0);
  }
  /// A `tosa.const_shape`.
  mlir::Value constShape(llvm::ArrayRef<int64_t> values);
  /// The zero `shift` operand of `tosa.mul`.
  mlir::Value mulShift();
  /// A zero point (`tensor<1xT>` holding 0) for `tosa.matmul` / `tosa.negate`.
  mlir::Value zeroPoint(mlir::Type elementType);

  //===--- Elementwise
  //-----------------------------------------------------===//

  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value sub(mlir::Value a, mlir::Value b);
  mlir::Value mul(mlir::Value a, mlir::Value b);
  mlir::Value pow(mlir::Value a, mlir::Value b);
  mlir::Value neg(mlir::Value x);
  mlir::Value exp(mlir::Value x);
  mlir::Value log(mlir::Value x);
  mlir::Value reciprocal(mlir::Value x);
  mlir::Value sin(mlir::Value x);
  mlir::Value cos(mlir::Value x);
  /// `x * c` for a constant `c`.
  mlir::Value scale(mlir::Value x, double c) {
    return mul(x, scalarLike(x.getType(), c));
  }
  /// Comparisons return an i1 tensor of the broadcast shape.
  mlir::Value greater(mlir::Value a, mlir::Value b);
  mlir::Value equal(mlir::Value a, mlir::Value b);
  mlir::Value logicalAnd(mlir::Value a, mlir::Value b);
  /// `tosa.select` with broadcasting; the element type is `onTrue`'s.
  mlir::Value select(mlir::Value cond, mlir::Value onTrue, mlir::Value onFalse);
  mlir::Value cast(mlir::Value x, mlir::Type elementType);

  //===--- Shapes and data movement
  //----------------------------------------===//

  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int32_t> perms);
  /// `tosa.reduce_sum` along `axis` (the dimension is kept, with size 1).
  mlir::Value reduceSum(mlir::Value x, int64_t axis);
  /// Sum of every element, as a tensor of the same rank with all dims 1.
  mlir::Value reduceSumAll(mlir::Value x);
  mlir::Value tile(mlir::Value x, llvm::ArrayRef<int64_t> multiples);
  mlir::Value slice(mlir::Value x, llvm::ArrayRef<int64_t> start,
                    llvm::ArrayRef<int64_t> size);
  /// Zero padding; `padding` is [lo0, hi0, lo1, hi1, ...].
  mlir::Value pad(mlir::Value x, llvm::ArrayRef<int64_t> padding);
  mlir::Value reverse(mlir::Value x, int64_t axis);
  /// `tosa.matmul` of [N, H, C] and [N, C, W] with zero zero-points.
  mlir::Value matmul(mlir::Value a, mlir::Value b);

  //===--- Windows of NHWC tensors (convolution and pooling rules)
  //---------===//

  /// `y` of `shape` with y[i] = x[i - offset] where that is inside `x` and
  /// `fill` (a `tensor<1xT>`; null: zero) elsewhere: pads and/or crops every
  /// dimension (a negative offset drops leading elements).
  mlir::Value shift(mlir::Value x, llvm::ArrayRef<int64_t> offset,
                    llvm::ArrayRef<int64_t> shape, mlir::Value fill = nullptr);
  /// Spreads dimensions 1 and 2 of the NHWC tensor `x` by `stride` ([sy,
  /// sx]): y[n, i*sy, j*sx, c] = x[n, i, j, c], zeros between; y is
  /// [N, (H-1)*sy+1, (W-1)*sx+1, C].
  mlir::Value dilate(mlir::Value x, llvm::ArrayRef<int64_t> stride);
  /// The strided window y[n, i, j, c] = x[n, offset[0] + i*stride[0],
  /// offset[1] + j*stride[1], c] of the NHWC tensor `x`, y of
  /// [N, size[0], size[1], C] (positions outside x read 0).
  mlir::Value subsample(mlir::Value x, llvm::ArrayRef<int64_t> offset,
                        llvm::ArrayRef<int64_t> stride,
                        llvm::ArrayRef<int64_t> size);
  /// `tosa.conv2d` of NHWC `x` and OHWI `w` with a zero bias, no padding,
  /// and the given stride, dilation and accumulator type. The output shape
  /// follows TOSA's formula (the caller makes the division exact).
  mlir::Value conv2d(mlir::Value x, mlir::Value w,
                     llvm::ArrayRef<int64_t> stride,
                     llvm::ArrayRef<int64_t> dilation, mlir::Type accType);
  /// `tosa.depthwise_conv2d` of NHWC `x` and HWCM `w` with a zero bias, no
  /// padding, and the given stride, dilation and accumulator type.
  mlir::Value depthwiseConv2d(mlir::Value x, mlir::Value w,
                              llvm::ArrayRef<int64_t> stride,
                              llvm::ArrayRef<int64_t> dilation,
                              mlir::Type accType);

  /// Undoes TOSA broadcasting: sums `grad` over every dimension where
  /// `target` has size 1 and `grad` does not, then reshapes to `target`'s
  /// shape if the ranks differ.
  mlir::Value sumToShape(mlir::Value grad, mlir::Type target);
  /// Broadcasts `x` to `target`'s shape (with `tosa.tile`).
  mlir::Value broadcastTo(mlir::Value x, mlir::Type target);

private:
  mlir::OpBuilder &builder;
  mlir::Location loc;
  ConstantPool &constants;
  PrimalFn primalFn;
};

/// Writes the backward of one forward operation.
///
/// `resultGrads[i]` is the cotangent of result i, or null when no gradient
/// reaches it (the rule is only called when at least one is set).
/// `needed[j]` tells whether operand j needs a cotangent. The rule stores in
/// `operandGrads[j]` (pre-sized to the operand count and all null) the
/// cotangent of each needed operand, of exactly the operand's type; null
/// means zero. Cotangents of operands that are not needed may be left null.
/// A failure must have emitted a diagnostic.
using GradientRule = std::function<mlir::LogicalResult(
    mlir::Operation *op, GradientEmitter &emitter,
    llvm::ArrayRef<mlir::Value> resultGrads, llvm::ArrayRef<bool> needed,
    llvm::MutableArrayRef<mlir::Value> operandGrads)>;

/// Gradient rules keyed by operation name (e.g. "tosa.matmul").
class GradientRuleTable {
public:
  /// Registers `rule` for `opName`; a second rule for the same name replaces
  /// the first.
  void add(llvm::StringRef opName, GradientRule rule);
  /// The rule of `opName`, or null.
  const GradientRule *lookup(llvm::StringRef opName) const;

  /// The table with every rule of the project (built once).
  static const GradientRuleTable &getDefault();

private:
  llvm::StringMap<GradientRule> rules;
};

/// Rule families (lib/Dialect/Pipe/Transforms/GradientRules/*.cpp).
void registerElementwiseGradientRules(GradientRuleTable &table);
void registerMatmulGradientRules(GradientRuleTable &table);
void registerReductionGradientRules(GradientRuleTable &table);
void registerDataMovementGradientRules(GradientRuleTable &table);
void registerConvolutionGradientRules(GradientRuleTable &table);
void registerPoolingGradientRules(GradientRuleTable &table);

//===----------------------------------------------------------------------===//
// Reverse-mode builder
//===----------------------------------------------------------------------===//

/// The backward function of one stage and the forward values it reads.
struct BackwardFunction {
  mlir::func::FuncOp func;
  /// Values of the stage function (in program order) that the backward
  /// receives as its stash arguments, in argument order.
  llvm::SmallVector<mlir::Value> stash;
};

/// Checks that `stage` can be differentiated: a body of one block, statically
/// shaped tensor arguments and results, a rule for every active operation.
/// Emits the errors.
mlir::LogicalResult verifyDifferentiable(mlir::func::FuncOp stage,
                                         llvm::ArrayRef<unsigned> gradArgs,
                                         const GradientRuleTable &rules);

/// Builds `name(args..., stash..., d_results...) -> (d_gradArgs...)` right
/// after `stage`: every argument of `stage`, then the stash, then one
/// cotangent per floating-point tensor result of `stage` in result order;
/// it returns the gradient of each argument listed in `gradArgs` (ascending)
/// in that order. Operations nested in `pipe.recompute` are recomputed from
/// their inputs instead of being stashed. The function is added to `symbols`
/// (renamed on a clash). Call `verifyDifferentiable` first.
mlir::FailureOr<BackwardFunction>
buildBackward(mlir::func::FuncOp stage, llvm::ArrayRef<unsigned> gradArgs,
              llvm::StringRef name, const GradientRuleTable &rules,
              mlir::SymbolTable &symbols);

/// True if `type` is a ranked tensor of floating-point elements.
bool isFloatTensor(mlir::Type type);

/// True for the constants the backward rematerialises where it uses them
/// instead of stashing them: constant-like operations and the cost model's
/// free constants (isFreeConstant). False for null.
bool isConstant(mlir::Operation *op);

//===----------------------------------------------------------------------===//
// Stage functions (shared by pipe-autodiff and pipe-recompute;
// DifferentiableStages.cpp)
//===----------------------------------------------------------------------===//

/// The stage functions of `module` (func.func with `pipe.stage`) in module
/// order, after checking all of them before anything changes: none may be
/// differentiated already (have `pipe.fwd`; `differentiatedError` is the
/// error on such a function) and each must pass verifyDifferentiable. Every
/// problem is reported; any one makes the result a failure.
mlir::FailureOr<llvm::SmallVector<mlir::func::FuncOp>>
getStagesToDifferentiate(mlir::ModuleOp module, const GradientRuleTable &rules,
                         llvm::StringRef differentiatedError);

//===----------------------------------------------------------------------===//
// Stash (shared by pipe-autodiff and pipe-recompute; Stash.cpp)
//===----------------------------------------------------------------------===//

/// (The arguments that get a gradient: pipe::differentiableArgs in
/// pipewave/Dialect/Pipe/Utils/StageFunctions.h.)

/// The values of `stage` that `pipe-autodiff` stashes (what `@S_fwd`
/// returns after the results of `@S`), in stash order. It builds the
/// backward of a copy of `stage` in a scratch module with `buildBackward`,
/// exactly as `pipe-autodiff` does, and discards it. Call
/// `verifyDifferentiable` first; fails (with a diagnostic) where
/// `buildBackward` does.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
computeStash(mlir::func::FuncOp stage, const GradientRuleTable &rules);

/// Bytes of `type` (a statically shaped tensor): elements times the element
/// size in whole bytes (i1 counts one byte); 0 for anything else.
int64_t tensorBytes(mlir::Type type);

/// Bytes that stay alive from the forward to the backward of one microbatch
/// of `stage`: its non-parameter arguments (data inputs and activations,
/// which the backward receives again) plus `stash`.
int64_t stashBytesPerMicrobatch(mlir::func::FuncOp stage,
                                llvm::ArrayRef<mlir::Value> stash);

} // namespace pipewave::pipe::autodiff

#endif // PIPEWAVE_DIALECT_PIPE_TRANSFORMS_GRADIENTRULES_H
