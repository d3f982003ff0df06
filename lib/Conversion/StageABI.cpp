//===- StageABI.cpp - pipe-stage-abi: runtime wrappers of stages ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The runtime calls every stage through one C signature, pw_stage_fn:
//
//   void pw_stage<k>_forward(void *const *args, void *const *results);
//
// and, for a stage pipe-autodiff differentiated, pw_stage<k>_backward,
// pw_stage<k>_backward_input and pw_stage<k>_backward_weight likewise
// (forward then calls @S_fwd, which also returns the stash). `args` holds the
// called function's arguments in order, `results` its results in order; a
// function with a workspace (pipe-plan-workspace) takes it as its last
// argument, and the module attribute pipewave.workspaces gives its size by
// wrapper name.
//
// The accumulating variants of pipe-accumulate-gradients get
// pw_stage<k>_backward_acc and pw_stage<k>_backward_weight_acc: an argument
// marked pipewave.accumulates = r is loaded from results[r], the buffer it
// adds to and returns in, and the module attribute pipewave.accumulating
// records which results accumulate.
//
// The wrapper is written at the memref level, with LLVM dialect ops for the
// pointer loads and the memref descriptors, so that convert-func-to-llvm
// lowers the call of the stage function like any other call.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "MemRefDescriptor.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/IR/BuiltinOps.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPESTAGEABI
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// The attribute buffer-results-to-out-params{add-result-attr} puts on
/// out-parameters.
constexpr StringLiteral kResultAttr = "bufferize.result";
/// The module's dictionary of the workspace sizes (kWorkspaceBytesAttr,
/// Passes.h) by wrapper name.
constexpr StringLiteral kWorkspacesAttr = "pipewave.workspaces";

/// `value` through the views that keep its bytes where they are.
Value viewSource(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp>(
            def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Erases every memref.copy in `fn` from (a view of) `from` to (a view of)
/// `to`.
void eraseCopies(func::FuncOp fn, Value from, Value to) {
  SmallVector<memref::CopyOp> copies;
  fn.walk([&](memref::CopyOp copy) {
    if (viewSource(copy.getSource()) == from &&
        viewSource(copy.getTarget()) == to)
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies)
    copy.erase();
}

struct PipeStageABIPass
    : public pipewave::impl::PipeStageABIBase<PipeStageABIPass> {
  using PipeStageABIBase::PipeStageABIBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> stages = pipe::getDefinedStageFunctions(module);
    for (func::FuncOp fn : stages)
      if (failed(addWrappers(fn, symbols)))
        return signalPassFailure();
  }

  /// The wrappers of stage `fn`: `_forward` calls `@S_fwd` for a trained
  /// stage (pipe.fwd), else the stage function itself; `_backward`,
  /// `_backward_input` and `_backward_weight` call the functions named by
  /// pipe.bwd, pipe.bwd_input and pipe.bwd_weight, when present.
  LogicalResult addWrappers(func::FuncOp fn, SymbolTable &symbols) {
    MLIRContext *ctx = &getContext();
    std::string base = (prefix + Twine(pipe::getStage(fn))).str();
    struct Entry {
      StringRef attr;
      StringRef suffix;
    };
    const Entry entries[] = {
        {pipe::PipeDialect::FwdAttrHelper::getNameStr(), "_forward"},
        {pipe::PipeDialect::BwdAttrHelper::getNameStr(), "_backward"},
        {pipe::PipeDialect::BwdInputAttrHelper::getNameStr(),
         "_backward_input"},
        {pipe::PipeDialect::BwdWeightAttrHelper::getNameStr(),
         "_backward_weight"}};
    // The accumulating variants of pipe-accumulate-gradients.
    const Entry accumulating[] = {
        {kAccumulatingBwdAttr, "_backward_acc"},
        {kAccumulatingBwdWeightAttr, "_backward_weight_acc"}};
    bool trained = fn->hasAttr(pipe::PipeDialect::FwdAttrHelper::getNameStr());
    if (!trained && failed(addWrapper(fn, base + "_forward", symbols)))
      return failure();
    for (const Entry &entry :
         llvm::concat<const Entry>(entries, accumulating)) {
      auto ref = fn->getAttrOfType<FlatSymbolRefAttr>(entry.attr);
      if (!ref)
        continue;
      auto target = symbols.lookup<func::FuncOp>(ref.getValue());
      if (!target || target.isExternal())
        return fn.emitError()
               << "pipe-stage-abi: '" << entry.attr << "' of '@"
               << fn.getSymName() << "' names " << ref
               << ", which is not a function defined in the module";
      if (failed(addWrapper(target, base + entry.suffix.str(), symbols)))
        return failure();
    }
    // A trained stage's own function is called by no wrapper: internal, so
    // that LLVM drops it.
    fn->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    return success();
  }

  /// Adds `name(void *const *args, void *const *results)` calling `fn`.
  LogicalResult addWrapper(func::FuncOp fn, StringRef name,
                           SymbolTable &symbols) {
    if (fn.getNumResults() != 0)
      return fn.emitError()
             << "pipe-stage-abi: stage function '@" << fn.getSymName()
             << "' still returns values; run "
                "buffer-results-to-out-params{add-result-attr} first";
    SmallVector<unsigned> ins, outs;
    // Arguments an accumulating variant adds to: result index -> argument.
    DenseMap<int64_t, unsigned> accumulators;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      auto type = dyn_cast<MemRefType>(fn.getArgumentTypes()[i]);
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
        return fn.emitError()
               << "pipe-stage-abi: argument #" << i << " of '@"
               << fn.getSymName()
               << "' must be a memref with a static shape and the identity "
                  "layout, got "
               << fn.getArgumentTypes()[i]
               << " (bufferize with "
                  "function-boundary-type-conversion=identity-layout-map)";
      if (auto r = fn.getArgAttrOfType<IntegerAttr>(i, kAccumulatesAttr))
        accumulators[r.getInt()] = i;
      else
        (fn.getArgAttr(i, kResultAttr) ? outs : ins).push_back(i);
    }
    for (auto [r, argNo] : accumulators)
      if (r < 0 || static_cast<size_t>(r) >= outs.size())
        return fn.emitError()
               << "pipe-stage-abi: argument #" << argNo << " of '@"
               << fn.getSymName() << "' accumulates into result #" << r
               << ", which it does not have";
    // The wrapper passes the result buffer as the accumulator too: the copy
    // of the accumulator into the result is a copy onto itself.
    for (auto [r, argNo] : accumulators)
      eraseCopies(fn, fn.getArgument(argNo), fn.getArgument(outs[r]));

    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    if (symbols.lookup(name))
      return fn.emitError()
             << "pipe-stage-abi: symbol '@" << name << "' already exists";
    OpBuilder b(ctx);
    b.setInsertionPointAfter(fn);
    Location loc = fn.getLoc();
    auto wrapper = func::FuncOp::create(
        b, loc, name, b.getFunctionType({ptrType, ptrType}, {}));
    symbols.insert(wrapper);
    Block *body = wrapper.addEntryBlock();
    b.setInsertionPointToStart(body);

    SmallVector<Value> operands(fn.getNumArguments());
    auto load = [&](Value array, unsigned slot, unsigned argNo) {
      Value addr = LLVM::GEPOp::create(
          b, loc, ptrType, ptrType, array,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(slot)});
      Value ptr = LLVM::LoadOp::create(b, loc, ptrType, addr);
      operands[argNo] = buildContiguousMemRef(
          b, loc, ptr, cast<MemRefType>(fn.getArgumentTypes()[argNo]));
    };
    for (auto [slot, argNo] : llvm::enumerate(ins))
      load(body->getArgument(0), slot, argNo);
    for (auto [slot, argNo] : llvm::enumerate(outs))
      load(body->getArgument(1), slot, argNo);
    for (auto [r, argNo] : accumulators)
      load(body->getArgument(1), r, argNo);
    func::CallOp::create(b, loc, fn, operands);
    func::ReturnOp::create(b, loc);
    // The runtime allocates the workspace of pipe-plan-workspace (the last
    // argument, so the last entry of `args`) from this size, recorded by
    // wrapper name in the module.
    if (Attribute bytes = fn->getAttr(kWorkspaceBytesAttr)) {
      Operation *module = wrapper->getParentOp();
      NamedAttrList sizes;
      if (auto known = module->getAttrOfType<DictionaryAttr>(kWorkspacesAttr))
        sizes.append(known.getValue());
      sizes.set(name, bytes);
      module->setAttr(kWorkspacesAttr, sizes.getDictionary(ctx));
    }

    // Which results the runtime must pass holding the value to add to.
    if (!accumulators.empty()) {
      SmallVector<int32_t> flags(outs.size(), 0);
      for (auto [r, argNo] : accumulators)
        flags[r] = 1;
      Operation *module = wrapper->getParentOp();
      NamedAttrList known;
      if (auto dict =
              module->getAttrOfType<DictionaryAttr>(kAccumulatingResultsAttr))
        known.append(dict.getValue());
      known.set(name, DenseI32ArrayAttr::get(ctx, flags));
      module->setAttr(kAccumulatingResultsAttr, known.getDictionary(ctx));
    }

    // Only the wrapper calls the function: keep it out of the symbol table
    // of the object (and let LLVM inline it).
    fn->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    return success();
  }
};

} // namespace
