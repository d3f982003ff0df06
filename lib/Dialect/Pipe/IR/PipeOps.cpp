//===- PipeOps.cpp - Operations of the pipe dialect -----------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace pipewave::pipe;

/// Checks the stage numbers and tag shared by pipe.send and pipe.recv.
static LogicalResult verifyEndpoints(Operation *op, Payload payload,
                                     int64_t from, int64_t to) {
  if (from == to)
    return op->emitOpError() << "sends stage " << from << " to itself";
  if (payload == Payload::Activation && from > to)
    return op->emitOpError() << "activations flow to later stages, but this "
                                "one goes from stage "
                             << from << " to stage " << to;
  if (payload == Payload::Gradient && from < to)
    return op->emitOpError() << "gradients flow to earlier stages, but this "
                                "one goes from stage "
                             << from << " to stage " << to;
  return success();
}

LogicalResult SendOp::verify() {
  return verifyEndpoints(*this, getPayload(), getFrom(), getTo());
}

LogicalResult RecvOp::verify() {
  return verifyEndpoints(*this, getPayload(), getFrom(), getTo());
}

LogicalResult RecomputeOp::verify() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getOperandTypes() == getResultTypes())
    return success();
  InFlightDiagnostic diag = emitOpError();
  if (yield.getNumOperands() == 0)
    diag << "yields no value";
  else
    diag << "yields " << yield.getNumOperands() << " value(s) of types "
         << yield.getOperandTypes();
  if (getNumResults() == 0)
    diag << " but has no results";
  else
    diag << " but has result types " << getResultTypes();
  return diag;
}

LogicalResult BatchMeanOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (!isa<FloatType>(in.getElementType()) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "takes and gives one floating-point element type";
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty() || axes.front() != 0)
    return emitOpError() << "must reduce the batch dimension 0";
  for (auto [i, a] : llvm::enumerate(axes))
    if (a >= in.getRank() || (i > 0 && a <= axes[i - 1]))
      return emitOpError() << "axes must be ascending dimensions of the input";
  SmallVector<int64_t> expected(in.getShape());
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= expected[a];
    expected[a] = 1;
  }
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result type " << out
                         << " does not keep the reduced dimensions as 1s";
  if (getCorrection() < 0 || (in.hasStaticShape() && getCorrection() >= count))
    return emitOpError() << "correction " << getCorrection()
                         << " must be at least 0 and below the count";
  return success();
}

LogicalResult UpdateStateOp::verify() {
  double m = getMomentum().convertToDouble();
  if (!(m >= 0.0 && m <= 1.0))
    return emitOpError() << "momentum " << m << " is not in [0, 1]";
  auto arg = dyn_cast<BlockArgument>(getState());
  auto fn = (*this)->getParentOfType<FunctionOpInterface>();
  if (!arg || !fn || arg.getOwner() != &fn.getFunctionBody().front() ||
      !isFrozenArg(fn, arg.getArgNumber()))
    return emitOpError() << "state must be a 'pipe.frozen' parameter "
                            "argument of the enclosing function";
  return success();
}

LogicalResult DropoutOp::verify() {
  double ratio = getRatio().convertToDouble();
  if (!(ratio >= 0.0 && ratio < 1.0))
    return emitOpError() << "ratio " << ratio << " is not in [0, 1)";
  if (!isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError() << "input must be a tensor of floating-point "
                            "elements, got "
                         << getInput().getType();
  auto counter = cast<RankedTensorType>(getCounter().getType());
  if (counter.getRank() != 2 || counter.getDimSize(1) != 3 ||
      counter.isDynamicDim(0) || counter.getDimSize(0) < 1 ||
      !counter.getElementType().isSignlessInteger(64))
    return emitOpError() << "counter must be a tensor<Nx3xi64> (rows [seed, "
                            "step, sample]), got "
                         << counter;
  if (getStreamAttr().getInt() < 0)
    return emitOpError() << "stream " << getStreamAttr().getInt()
                         << " is negative";
  return success();
}

void RecomputeOp::inlineBody() {
  Block &body = getBody().front();
  Operation *yield = body.getTerminator();
  (*this)->getBlock()->getOperations().splice(
      Block::iterator(*this), body.getOperations(), body.begin(),
      Block::iterator(yield));
  (*this)->replaceAllUsesWith(yield->getOperands());
  erase();
}

void RecomputeOp::inlineAll(Operation *root) {
  SmallVector<RecomputeOp> regions;
  root->walk([&](RecomputeOp op) { regions.push_back(op); });
  for (RecomputeOp op : regions)
    op.inlineBody();
}

#define GET_OP_CLASSES
#include "pipewave/Dialect/Pipe/IR/PipeOps.cpp.inc"
