//===- PipeDialect.cpp - The pipe dialect and its attributes --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace pipewave::pipe;

#include "pipewave/Dialect/Pipe/IR/PipeDialect.cpp.inc"
#include "pipewave/Dialect/Pipe/IR/PipeEnums.cpp.inc"

void PipeDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pipewave/Dialect/Pipe/IR/PipeOps.cpp.inc"
      >();
}

/// Checks that `op` is a stage function (a function with `pipe.stage`).
static LogicalResult verifyOnStageFunction(Operation *op, NamedAttribute attr) {
  if (!isa<FunctionOpInterface>(op) ||
      !op->hasAttr(PipeDialect::StageAttrHelper::getNameStr()))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be on a stage function (a function "
                              "with '"
                           << PipeDialect::StageAttrHelper::getNameStr()
                           << "')";
  return success();
}

/// `pipe.fwd`, `pipe.bwd`, `pipe.bwd_input`, `pipe.bwd_weight`: a symbol
/// naming a function next to the stage function.
static LogicalResult verifyDerivativeLink(Operation *op, NamedAttribute attr) {
  if (failed(verifyOnStageFunction(op, attr)))
    return failure();
  auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
  if (!ref)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be a flat symbol reference";
  if (Operation *table = op->getParentOp()) {
    if (table->hasTrait<OpTrait::SymbolTable>()) {
      Operation *target = SymbolTable::lookupSymbolIn(table, ref.getAttr());
      if (!target || !isa<FunctionOpInterface>(target))
        return op->emitError()
               << "'" << attr.getName().getValue() << "' refers to " << ref
               << ", which is not a function of the module";
    }
  }
  if (attr.getName() != PipeDialect::FwdAttrHelper::getNameStr() &&
      !op->hasAttr(PipeDialect::FwdAttrHelper::getNameStr()))
    return op->emitError() << "'" << attr.getName().getValue() << "' requires '"
                           << PipeDialect::FwdAttrHelper::getNameStr() << "'";
  StringRef input = PipeDialect::BwdInputAttrHelper::getNameStr();
  StringRef weight = PipeDialect::BwdWeightAttrHelper::getNameStr();
  if (attr.getName() == input && !op->hasAttr(weight))
    return op->emitError() << "'" << input << "' requires '" << weight << "'";
  if (attr.getName() == weight && !op->hasAttr(input))
    return op->emitError() << "'" << weight << "' requires '" << input << "'";
  return success();
}

/// `pipe.grad_args`, `pipe.state_args`: ascending argument indices of the
/// stage function.
static LogicalResult verifyArgIndices(Operation *op, NamedAttribute attr) {
  if (failed(verifyOnStageFunction(op, attr)))
    return failure();
  auto indices = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  if (!indices)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be an array<i64: ...> of argument "
                              "indices";
  int64_t numArgs = cast<FunctionOpInterface>(op).getNumArguments();
  int64_t previous = -1;
  for (int64_t index : indices.asArrayRef()) {
    if (index <= previous || index >= numArgs)
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must list argument indices in [0, "
                             << numArgs << ") in ascending order";
    previous = index;
  }
  return success();
}

/// `pipe.wstash_args`: one entry >= -1 per argument of the stage's
/// pipe.bwd_weight, each k >= 0 an argument of its pipe.bwd_input.
static LogicalResult verifyWStashArgs(Operation *op, NamedAttribute attr) {
  if (failed(verifyOnStageFunction(op, attr)))
    return failure();
  auto entries = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  if (!entries)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be an array<i64: ...>";
  StringRef inputName = PipeDialect::BwdInputAttrHelper::getNameStr();
  auto input = op->getAttrOfType<FlatSymbolRefAttr>(inputName);
  if (!input)
    return op->emitError() << "'" << attr.getName().getValue() << "' requires '"
                           << inputName << "'";
  Operation *table = op->getParentOp();
  if (!table || !table->hasTrait<OpTrait::SymbolTable>())
    return success();
  auto inputFn = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(table, input.getAttr()));
  auto weightFn =
      dyn_cast_or_null<FunctionOpInterface>(SymbolTable::lookupSymbolIn(
          table, op->getAttrOfType<FlatSymbolRefAttr>(
                     PipeDialect::BwdWeightAttrHelper::getNameStr())));
  if (!inputFn || !weightFn)
    return success(); // verifyDerivativeLink reports it
  // Lowering passes append arguments (a workspace, a stream) and bufferize
  // the types; the entries describe the leading tensor arguments.
  if (entries.size() > static_cast<int64_t>(weightFn.getNumArguments()))
    return op->emitError() << "'" << attr.getName().getValue() << "' has "
                           << entries.size() << " entries; '@"
                           << SymbolTable::getSymbolName(weightFn).getValue()
                           << "' takes " << weightFn.getNumArguments()
                           << " arguments";
  int64_t numInputArgs = inputFn.getNumArguments();
  for (auto [j, k] : llvm::enumerate(entries.asArrayRef())) {
    if (k < -1 || k >= numInputArgs)
      return op->emitError()
             << "'" << attr.getName().getValue() << "' entry " << j << " is "
             << k << "; expected -1 or an argument index of '@"
             << SymbolTable::getSymbolName(inputFn).getValue() << "' in [0, "
             << numInputArgs << ")";
    Type from = k >= 0 ? inputFn.getArgumentTypes()[k] : Type();
    Type to = weightFn.getArgumentTypes()[j];
    if (isa_and_nonnull<RankedTensorType>(from) && isa<RankedTensorType>(to) &&
        from != to)
      return op->emitError()
             << "'" << attr.getName().getValue() << "' entry " << j
             << " names argument " << k << " of '@"
             << SymbolTable::getSymbolName(inputFn).getValue() << "' of type "
             << from << ", but argument " << j << " of '@"
             << SymbolTable::getSymbolName(weightFn).getValue() << "' is "
             << to;
  }
  return success();
}

/// `pipe.replicas = array<i64: ...>` (written by pipe-plan): the
/// data-parallel replicas of every stage, each at least 1, on a function.
static LogicalResult verifyReplicas(Operation *op, NamedAttribute attr) {
  auto replicas = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  if (!isa<FunctionOpInterface>(op) || !replicas || replicas.empty() ||
      llvm::any_of(replicas.asArrayRef(), [](int64_t r) { return r < 1; }))
    return op->emitError() << "'"
                           << PipeDialect::ReplicasAttrHelper::getNameStr()
                           << "' must be a non-empty array<i64: ...> of "
                              "replica counts >= 1 on a function";
  return success();
}

/// `pipe.microbatches = M : i64` (written by pipe-plan, read by
/// pipe-schedule): the microbatches of a step, at least 1, on a function.
static LogicalResult verifyMicrobatches(Operation *op, NamedAttribute attr) {
  auto count = dyn_cast<IntegerAttr>(attr.getValue());
  if (!isa<FunctionOpInterface>(op) || !count || count.getInt() < 1)
    return op->emitError() << "'"
                           << PipeDialect::MicrobatchesAttrHelper::getNameStr()
                           << "' must be an integer >= 1 on a function";
  return success();
}

LogicalResult PipeDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == StageAttrHelper::getNameStr()) {
    auto stage = dyn_cast<IntegerAttr>(attr.getValue());
    if (!stage || !stage.getType().isInteger(64))
      return op->emitError() << "'" << StageAttrHelper::getNameStr()
                             << "' must be an i64 integer attribute";
    if (stage.getInt() < 0)
      return op->emitError()
             << "'" << StageAttrHelper::getNameStr()
             << "' must be non-negative, got " << stage.getInt();
    return success();
  }
  if (attr.getName() == FwdAttrHelper::getNameStr() ||
      attr.getName() == BwdAttrHelper::getNameStr() ||
      attr.getName() == BwdInputAttrHelper::getNameStr() ||
      attr.getName() == BwdWeightAttrHelper::getNameStr())
    return verifyDerivativeLink(op, attr);
  if (attr.getName() == GradArgsAttrHelper::getNameStr() ||
      attr.getName() == StateArgsAttrHelper::getNameStr())
    return verifyArgIndices(op, attr);
  if (attr.getName() == WstashArgsAttrHelper::getNameStr())
    return verifyWStashArgs(op, attr);
  if (attr.getName() == ReplicasAttrHelper::getNameStr())
    return verifyReplicas(op, attr);
  if (attr.getName() == MicrobatchesAttrHelper::getNameStr())
    return verifyMicrobatches(op, attr);
  if (attr.getName() == ParamAttrHelper::getNameStr() ||
      attr.getName() == NameAttrHelper::getNameStr())
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is an argument attribute; it cannot be "
                              "placed on an operation";
  return op->emitError() << "unknown pipe dialect attribute '"
                         << attr.getName().getValue() << "'";
}

/// `pipe.counter` on argument `argIndex` of `op`: a unit attribute on a
/// `tensor<Bx3xi64>` (or, bufferized, memref) argument that is not a
/// parameter, at most one per function.
static LogicalResult verifyCounterArg(Operation *op, unsigned argIndex,
                                      NamedAttribute attr) {
  StringRef name = PipeDialect::CounterAttrHelper::getNameStr();
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << name << "' on argument #" << argIndex
                           << " must be a unit attribute";
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return success();
  // (Bufferized stage functions keep the attribute on a memref.)
  auto type = dyn_cast<ShapedType>(fn.getArgumentTypes()[argIndex]);
  if (!type || !type.hasStaticShape() || type.getRank() != 2 ||
      type.getDimSize(1) != 3 || !type.getElementType().isSignlessInteger(64))
    return op->emitError() << "'" << name << "' on argument #" << argIndex
                           << " needs a tensor<Bx3xi64> argument, got "
                           << fn.getArgumentTypes()[argIndex];
  if (fn.getArgAttr(argIndex, PipeDialect::ParamAttrHelper::getNameStr()))
    return op->emitError() << "'" << name << "' on argument #" << argIndex
                           << " cannot be on a parameter";
  for (unsigned i = 0; i < argIndex; ++i)
    if (fn.getArgAttr(i, name))
      return op->emitError()
             << "'" << name << "' on arguments #" << i << " and #" << argIndex
             << ": a function has at most one counter";
  return success();
}

LogicalResult PipeDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == ParamAttrHelper::getNameStr()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << ParamAttrHelper::getNameStr() << "' on argument #"
             << argIndex << " must be a unit attribute";
    return success();
  }
  if (attr.getName() == FrozenAttrHelper::getNameStr()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << FrozenAttrHelper::getNameStr() << "' on argument #"
             << argIndex << " must be a unit attribute";
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (fn && !fn.getArgAttr(argIndex, ParamAttrHelper::getNameStr()))
      return op->emitError()
             << "'" << FrozenAttrHelper::getNameStr() << "' on argument #"
             << argIndex << " needs '" << ParamAttrHelper::getNameStr()
             << "' (only a parameter can be frozen)";
    return success();
  }
  if (attr.getName() == CounterAttrHelper::getNameStr())
    return verifyCounterArg(op, argIndex, attr);
  if (attr.getName() == NameAttrHelper::getNameStr()) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue().empty())
      return op->emitError()
             << "'" << NameAttrHelper::getNameStr() << "' on argument #"
             << argIndex << " must be a non-empty string";
    return success();
  }
  return op->emitError() << "unknown pipe dialect argument attribute '"
                         << attr.getName().getValue() << "' on argument #"
                         << argIndex;
}

int64_t pipewave::pipe::getStage(Operation *op) {
  if (IntegerAttr stage =
          PipeDialect::StageAttrHelper(op->getContext()).getAttr(op))
    return stage.getInt();
  return -1;
}

void pipewave::pipe::setStage(Operation *op, int64_t stage) {
  MLIRContext *ctx = op->getContext();
  PipeDialect::StageAttrHelper(ctx).setAttr(
      op, IntegerAttr::get(IntegerType::get(ctx, 64), stage));
}

UnitAttr pipewave::pipe::getParamArgAttr(FunctionOpInterface fn, unsigned arg) {
  return fn.getArgAttrOfType<UnitAttr>(
      arg, PipeDialect::ParamAttrHelper(fn->getContext()).getName());
}

void pipewave::pipe::setParamArgAttr(FunctionOpInterface fn, unsigned arg) {
  MLIRContext *ctx = fn->getContext();
  fn.setArgAttr(arg, PipeDialect::ParamAttrHelper(ctx).getName(),
                UnitAttr::get(ctx));
}

bool pipewave::pipe::isFrozenArg(FunctionOpInterface fn, unsigned arg) {
  return static_cast<bool>(fn.getArgAttrOfType<UnitAttr>(
      arg, PipeDialect::FrozenAttrHelper(fn->getContext()).getName()));
}

void pipewave::pipe::setFrozenArgAttr(FunctionOpInterface fn, unsigned arg) {
  MLIRContext *ctx = fn->getContext();
  fn.setArgAttr(arg, PipeDialect::FrozenAttrHelper(ctx).getName(),
                UnitAttr::get(ctx));
}

bool pipewave::pipe::isCounterArg(FunctionOpInterface fn, unsigned arg) {
  return static_cast<bool>(fn.getArgAttrOfType<UnitAttr>(
      arg, PipeDialect::CounterAttrHelper(fn->getContext()).getName()));
}

void pipewave::pipe::setCounterArgAttr(FunctionOpInterface fn, unsigned arg) {
  MLIRContext *ctx = fn->getContext();
  fn.setArgAttr(arg, PipeDialect::CounterAttrHelper(ctx).getName(),
                UnitAttr::get(ctx));
}

StringAttr pipewave::pipe::getNameArgAttr(FunctionOpInterface fn,
                                          unsigned arg) {
  return fn.getArgAttrOfType<StringAttr>(
      arg, PipeDialect::NameAttrHelper(fn->getContext()).getName());
}

void pipewave::pipe::setNameArgAttr(FunctionOpInterface fn, unsigned arg,
                                    StringAttr name) {
  fn.setArgAttr(arg, PipeDialect::NameAttrHelper(fn->getContext()).getName(),
                name);
}

StringAttr pipewave::pipe::getNameResultAttr(FunctionOpInterface fn,
                                             unsigned result) {
  return fn.getResultAttrOfType<StringAttr>(
      result, PipeDialect::NameAttrHelper(fn->getContext()).getName());
}

void pipewave::pipe::setNameResultAttr(FunctionOpInterface fn, unsigned result,
                                       StringAttr name) {
  fn.setResultAttr(
      result, PipeDialect::NameAttrHelper(fn->getContext()).getName(), name);
}

StringAttr pipewave::pipe::getCombineResultAttr(FunctionOpInterface fn,
                                                unsigned result) {
  return fn.getResultAttrOfType<StringAttr>(
      result, PipeDialect::CombineAttrHelper(fn->getContext()).getName());
}

void pipewave::pipe::setCombineResultAttr(FunctionOpInterface fn,
                                          unsigned result, StringAttr combine) {
  fn.setResultAttr(result,
                   PipeDialect::CombineAttrHelper(fn->getContext()).getName(),
                   combine);
}
