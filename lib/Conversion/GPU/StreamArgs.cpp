//===- StreamArgs.cpp - pipe-gpu-stream-args ------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "GpuUtils.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEGPUSTREAMARGS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

Value pipewave::getStream(Operation *op) {
  auto fn = op->getParentOfType<func::FuncOp>();
  if (!fn || fn.getNumArguments() == 0 ||
      !fn.getArgAttr(fn.getNumArguments() - 1, kStreamAttr))
    return nullptr;
  return fn.getArgument(fn.getNumArguments() - 1);
}

namespace {

struct PipeGpuStreamArgsPass
    : public pipewave::impl::PipeGpuStreamArgsBase<PipeGpuStreamArgsPass> {
  using PipeGpuStreamArgsBase::PipeGpuStreamArgsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    SmallVector<func::FuncOp> defined;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal())
        defined.push_back(fn);
    llvm::DenseSet<StringRef> names;
    for (func::FuncOp fn : defined) {
      names.insert(fn.getSymName());
      unsigned index = fn.getNumArguments();
      if (failed(fn.insertArgument(
              index, ptr,
              DictionaryAttr::get(
                  ctx, {NamedAttribute(StringAttr::get(ctx, kStreamAttr),
                                       UnitAttr::get(ctx))}),
              fn.getLoc())))
        return signalPassFailure();
    }
    for (func::FuncOp fn : defined) {
      Value stream = fn.getArgument(fn.getNumArguments() - 1);
      fn.walk([&](func::CallOp call) {
        if (names.contains(call.getCallee()))
          call->insertOperands(call->getNumOperands(), stream);
      });
    }
  }
};

} // namespace
