//===- Stash.cpp - What pipe-autodiff passes from forward to backward -----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The stash of a stage is decided by the reverse-mode builder itself: a
// forward value is stashed when a gradient rule reads it and it cannot be
// taken from the arguments, rematerialised or recomputed (see
// AutodiffReverse.cpp). `computeStash` therefore runs that builder on a copy
// of the stage and keeps only the list of stashed values, so pipe-recompute
// reports exactly what pipe-autodiff will stash.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OwningOpRef.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;
using namespace pipewave::pipe::autodiff;

FailureOr<SmallVector<Value>>
pipewave::pipe::autodiff::computeStash(func::FuncOp stage,
                                       const GradientRuleTable &rules) {
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(stage.getLoc());
  IRMapping mapping;
  auto copy = cast<func::FuncOp>(stage->clone(mapping));
  scratch->push_back(copy);
  SymbolTable symbols(*scratch);
  FailureOr<BackwardFunction> bwd =
      buildBackward(copy, differentiableArgs(copy),
                    (stage.getSymName() + "_bwd").str(), rules, symbols);
  if (failed(bwd))
    return failure();

  DenseMap<Value, Value> original;
  for (auto [from, to] : mapping.getValueMap())
    original[to] = from;
  SmallVector<Value> stash;
  for (Value value : bwd->stash) {
    Value orig = original.lookup(value);
    assert(orig && "stashed value not in the copied stage");
    stash.push_back(orig);
  }
  return stash;
}

int64_t pipewave::pipe::autodiff::tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  Type element = tensor.getElementType();
  int64_t bytes = 0;
  if (auto complex = dyn_cast<ComplexType>(element))
    element = complex.getElementType(), bytes = 2;
  else
    bytes = 1;
  if (element.isIndex())
    bytes *= 8;
  else if (element.isIntOrFloat())
    bytes *= (element.getIntOrFloatBitWidth() + 7) / 8;
  else
    return 0;
  return bytes * tensor.getNumElements();
}

int64_t
pipewave::pipe::autodiff::stashBytesPerMicrobatch(func::FuncOp stage,
                                                  ArrayRef<Value> stash) {
  int64_t bytes = 0;
  for (unsigned i = 0; i < stage.getNumArguments(); ++i)
    if (!isParam(stage, i))
      bytes += tensorBytes(stage.getArgumentTypes()[i]);
  for (Value value : stash)
    bytes += tensorBytes(value.getType());
  return bytes;
}
