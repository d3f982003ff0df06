//===- Reduce.cpp - stablehlo.reduce to TOSA reductions -------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// A reduce whose body is one binary operation of its two arguments (add,
// maximum, minimum, multiply, and, or) becomes one TOSA reduction per
// reduced dimension (each keeps the dimension with size 1), a reshape that
// drops them, and, unless the init value is a constant equal to the
// operation's identity, the binary operation applied to the init value.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"
#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace pipewave;
using namespace pipewave::shlo;
namespace sh = pipewave::stablehlo;

namespace {

enum class Kind { Sum, Max, Min, Prod, All, Any };

/// The reduction the body computes, or nullopt.
std::optional<Kind> bodyKind(sh::ReduceOp op) {
  Block &block = op.getBody().front();
  if (block.getOperations().size() != 2 || block.getNumArguments() != 2)
    return std::nullopt;
  Operation &inner = block.front();
  if (inner.getNumOperands() != 2 ||
      !llvm::is_contained(block.getArguments(), inner.getOperand(0)) ||
      !llvm::is_contained(block.getArguments(), inner.getOperand(1)) ||
      inner.getOperand(0) == inner.getOperand(1) ||
      block.back().getOperand(0) != inner.getResult(0))
    return std::nullopt;
  bool isBool = cast<TensorType>(inner.getResult(0).getType())
                    .getElementType()
                    .isInteger(1);
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(&inner)
      .Case([](sh::AddOp) { return Kind::Sum; })
      .Case([](sh::MaxOp) { return Kind::Max; })
      .Case([](sh::MinOp) { return Kind::Min; })
      .Case([&](sh::MulOp) { return isBool ? Kind::All : Kind::Prod; })
      .Case([&](sh::AndOp) {
        return isBool ? std::optional(Kind::All) : std::nullopt;
      })
      .Case([&](sh::OrOp) {
        return isBool ? std::optional(Kind::Any) : std::nullopt;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// True if `init` is a constant equal to the identity of `kind`.
bool isIdentity(Value init, Kind kind) {
  DenseElementsAttr value;
  if (!matchPattern(init, m_Constant(&value)) || !value.isSplat())
    return false;
  if (isa<FloatType>(value.getElementType())) {
    double v = value.getSplatValue<APFloat>().convertToDouble();
    switch (kind) {
    case Kind::Sum:
      return v == 0;
    case Kind::Prod:
      return v == 1;
    case Kind::Max:
      return std::isinf(v) && v < 0;
    case Kind::Min:
      return std::isinf(v) && v > 0;
    default:
      return false;
    }
  }
  APInt v = value.getSplatValue<APInt>();
  switch (kind) {
  case Kind::Sum:
    return v.isZero();
  case Kind::Prod:
    return v.isOne();
  case Kind::Max:
    return v.isMinSignedValue();
  case Kind::Min:
    return v.isMaxSignedValue();
  case Kind::All:
    return v.isAllOnes();
  case Kind::Any:
    return v.isZero();
  }
  return false;
}

template <typename OpTy> Value reduceAxis(TosaBuilder &tb, Value x, int64_t d) {
  SmallVector<int64_t> s(TosaBuilder::shape(x));
  s[d] = 1;
  return OpTy::create(tb.b, tb.loc,
                      TosaBuilder::tensor(s, TosaBuilder::elem(x)), x,
                      tb.b.getI32IntegerAttr(d));
}

Value reduceOne(TosaBuilder &tb, Kind kind, Value x, int64_t d) {
  switch (kind) {
  case Kind::Sum:
    return reduceAxis<tosa::ReduceSumOp>(tb, x, d);
  case Kind::Max:
    return reduceAxis<tosa::ReduceMaxOp>(tb, x, d);
  case Kind::Min:
    return reduceAxis<tosa::ReduceMinOp>(tb, x, d);
  case Kind::Prod:
    return reduceAxis<tosa::ReduceProductOp>(tb, x, d);
  case Kind::All:
    return reduceAxis<tosa::ReduceAllOp>(tb, x, d);
  case Kind::Any:
    return reduceAxis<tosa::ReduceAnyOp>(tb, x, d);
  }
  return {};
}

Value combine(TosaBuilder &tb, Kind kind, Value x, Value init) {
  switch (kind) {
  case Kind::Sum:
    return tb.binary<tosa::AddOp>(x, init);
  case Kind::Max:
    return tb.binary<tosa::MaximumOp>(x, init);
  case Kind::Min:
    return tb.binary<tosa::MinimumOp>(x, init);
  case Kind::Prod:
    return tb.mul(x, init);
  case Kind::All:
    return tb.binary<tosa::LogicalAndOp>(x, init);
  case Kind::Any:
    return tb.binary<tosa::LogicalOrOp>(x, init);
  }
  return {};
}

Value lowerReduce(TosaBuilder &tb, sh::ReduceOp op, sh::ReduceOp::Adaptor a) {
  std::optional<Kind> kind = bodyKind(op);
  if (op.getInputs().size() != 1 || !kind) {
    op.emitOpError() << "is only supported with one input and a body of one "
                        "add, maximum, minimum, multiply, and or or";
    return {};
  }
  Value x = a.getInputs()[0];
  SmallVector<int64_t> dims(op.getDimensions());
  llvm::sort(dims);
  for (int64_t d : dims)
    x = reduceOne(tb, *kind, x, d);
  auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
  x = tb.reshape(x, resultType.getShape());
  if (!isIdentity(op.getInitValues()[0], *kind))
    x = tb.reshape(combine(tb, *kind, x, a.getInitValues()[0]),
                   resultType.getShape());
  return x;
}

} // namespace

void pipewave::populateStablehloReduceToTosaPatterns(
    RewritePatternSet &patterns) {
  addLowering<sh::ReduceOp>(patterns, lowerReduce);
}
