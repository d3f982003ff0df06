//===- IsolateStages.cpp - pipe-isolate-stages ----------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Keeps only the stage functions of a pipelined module, and the training
// functions pipe-autodiff made for them (pipe.fwd, pipe.bwd, pipe.bwd_input,
// pipe.bwd_weight), ready to be lowered to native code.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"
#include "pipewave/Dialect/Sched/IR/Sched.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEISOLATESTAGES
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

struct PipeIsolateStagesPass
    : public pipewave::impl::PipeIsolateStagesBase<PipeIsolateStagesPass> {
  using PipeIsolateStagesBase::PipeIsolateStagesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> stages = pipe::getDefinedStageFunctions(module);
    if (stages.empty()) {
      module.emitError() << "pipe-isolate-stages: the module has no stage "
                            "function (func.func with pipe.stage); run "
                            "pipe-outline-stages first";
      return signalPassFailure();
    }

    // The training functions of every stage.
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> lowered(stages);
    for (func::FuncOp fn : stages)
      for (StringRef attrName :
           {pipe::PipeDialect::FwdAttrHelper::getNameStr(),
            pipe::PipeDialect::BwdAttrHelper::getNameStr(),
            pipe::PipeDialect::BwdInputAttrHelper::getNameStr(),
            pipe::PipeDialect::BwdWeightAttrHelper::getNameStr()}) {
        auto ref = fn->getAttrOfType<FlatSymbolRefAttr>(attrName);
        if (!ref)
          continue;
        auto target = symbols.lookup<func::FuncOp>(ref.getValue());
        if (!target || target.isExternal()) {
          fn.emitError() << "pipe-isolate-stages: '" << attrName << "' of '@"
                         << fn.getSymName() << "' names " << ref
                         << ", which is not a function defined in the module";
          return signalPassFailure();
        }
        lowered.push_back(target);
      }

    // Keep those functions and whatever they reference.
    llvm::SmallPtrSet<Operation *, 16> keep;
    SmallVector<Operation *> worklist;
    for (func::FuncOp fn : lowered)
      if (keep.insert(fn).second)
        worklist.push_back(fn);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (auto uses = SymbolTable::getSymbolUses(op))
        for (const SymbolTable::SymbolUse &use : *uses)
          if (Operation *def =
                  symbols.lookup(use.getSymbolRef().getRootReference()))
            if (keep.insert(def).second)
              worklist.push_back(def);
    }
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if ((isa<func::FuncOp>(op) && !keep.contains(&op)) ||
          isa<sched::ProgramOp>(op))
        op.erase();

    for (func::FuncOp fn : lowered) {
      // The native code runs the forward once: the `pipe.recompute` regions
      // only mattered to pipe-autodiff.
      pipe::RecomputeOp::inlineAll(fn);
      fn.setPrivate();
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
        if (isa<TensorType>(fn.getArgumentTypes()[i]))
          fn.setArgAttr(i,
                        bufferization::BufferizationDialect::kWritableAttrName,
                        BoolAttr::get(&getContext(), false));
    }
  }
};

} // namespace
