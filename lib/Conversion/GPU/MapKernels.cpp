//===- MapKernels.cpp - pipe-gpu-map-kernels ------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The pass shell around KernelBuilder: generalizes the linalg ops (and
// memref.copy) of every host function, maps each to a kernel in the
// gpu.module of its stage and moves the globals the host reads into that
// module.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"

#include "KernelBuilder.h"
#include "StageModules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEGPUMAPKERNELS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

std::string pipewave::kernelModuleName(func::FuncOp fn) {
  int64_t stage = pipe::getStage(fn);
  if (stage < 0) {
    auto module = fn->getParentOfType<ModuleOp>();
    const StringRef attrs[] = {
        pipe::PipeDialect::FwdAttrHelper::getNameStr(),
        pipe::PipeDialect::BwdAttrHelper::getNameStr(),
        pipe::PipeDialect::BwdInputAttrHelper::getNameStr(),
        pipe::PipeDialect::BwdWeightAttrHelper::getNameStr()};
    for (auto other : module.getOps<func::FuncOp>()) {
      int64_t k = pipe::getStage(other);
      if (k < 0)
        continue;
      for (StringRef attr : attrs)
        if (auto ref = other->getAttrOfType<FlatSymbolRefAttr>(attr))
          if (ref.getValue() == fn.getSymName())
            stage = k;
    }
  }
  if (stage < 0)
    return "pw_kernels";
  return "pw_stage" + std::to_string(stage) + "_kernels";
}

namespace {

struct PipeGpuMapKernelsPass
    : public pipewave::impl::PipeGpuMapKernelsBase<PipeGpuMapKernelsPass> {
  using PipeGpuMapKernelsBase::PipeGpuMapKernelsBase;

  /// The kernels become an image through the NVVM target and the LLVM IR
  /// translation (gpu-module-to-binary, later in the pipeline): register
  /// them here so that any driver of the pipeline has them.
  void getDependentDialects(DialectRegistry &registry) const override {
    PipeGpuMapKernelsBase::getDependentDialects(registry);
    registerBuiltinDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : funcs) {
      if (fn.isExternal())
        continue;
      if (failed(mapFunction(fn)))
        return signalPassFailure();
    }
  }

  gpu::GPUModuleOp getOrCreateModule(StringRef name) {
    ModuleOp module = getOperation();
    if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(name))
      return existing;
    auto b = OpBuilder::atBlockEnd(module.getBody());
    return gpu::GPUModuleOp::create(b, module.getLoc(), name);
  }

  LogicalResult mapFunction(func::FuncOp fn) {
    SmallVector<Operation *> work;
    fn.walk([&](Operation *op) {
      if (isa<linalg::LinalgOp, memref::CopyOp>(op))
        work.push_back(op);
      if (isa<memref::GetGlobalOp>(op))
        work.push_back(op);
    });
    if (work.empty())
      return success();
    gpu::GPUModuleOp kernels = getOrCreateModule(kernelModuleName(fn));
    IRRewriter rewriter(&getContext());
    unsigned counter = 0;
    Value init; // the fill folded into the next reduction
    for (size_t i = 0, e = work.size(); i < e; ++i) {
      Operation *op = work[i];
      if (auto fill = dyn_cast<linalg::FillOp>(op)) {
        if (Value value =
                fusableFill(fill, i + 1 < e ? work[i + 1] : nullptr)) {
          init = value;
          rewriter.eraseOp(fill);
          continue;
        }
      }
      if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
        if (failed(moveGlobal(get, kernels)))
          return failure();
        continue;
      }
      rewriter.setInsertionPoint(op);
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                    copy.getTarget());
        rewriter.eraseOp(copy);
      }
      auto linalgOp = cast<linalg::LinalgOp>(op);
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, linalgOp);
        if (failed(generalized))
          return op->emitError("pipe-gpu-map-kernels: cannot generalize '")
                 << op->getName() << "'";
        generic = *generalized;
      }
      std::string name = (fn.getSymName() + "_k" + Twine(counter++)).str();
      if (failed(mapGenericToKernel(generic, kernels, name, init)))
        return failure();
      init = nullptr;
    }
    return success();
  }

  /// The constant `fill` writes into the output of the reduction `next`
  /// that follows it (only side-effect free ops between): the reduction
  /// starts from it instead, one kernel less. Null otherwise.
  static Value fusableFill(linalg::FillOp fill, Operation *next) {
    auto reduction = dyn_cast_or_null<linalg::LinalgOp>(next);
    if (!reduction || reduction->getBlock() != fill->getBlock() ||
        reduction.getNumDpsInits() != 1 ||
        reduction.getNumReductionLoops() == 0 ||
        reduction.getDpsInitOperand(0)->get() != fill.getOutputs()[0])
      return nullptr;
    // The reduction reads its output only through the init block argument.
    for (OpOperand *input : reduction.getDpsInputOperands())
      if (input->get() == fill.getOutputs()[0])
        return nullptr;
    Value value = fill.getInputs()[0];
    if (!matchPattern(value, m_Constant()))
      return nullptr;
    for (Operation *op = fill->getNextNode(); op != next;
         op = op->getNextNode())
      if (!op || !isMemoryEffectFree(op))
        return nullptr;
    return value;
  }

  /// Copies the global read by `get` into `kernels` (a public device
  /// global) and tags `get` with the module that holds it.
  LogicalResult moveGlobal(memref::GetGlobalOp get, gpu::GPUModuleOp kernels) {
    ModuleOp module = getOperation();
    auto global = module.lookupSymbol<memref::GlobalOp>(get.getNameAttr());
    if (!global)
      return get.emitError("pipe-gpu-map-kernels: global ")
             << get.getNameAttr() << " not found in the module";
    if (!kernels.lookupSymbol(get.getNameAttr())) {
      auto b = OpBuilder::atBlockBegin(kernels.getBody());
      auto copy = cast<memref::GlobalOp>(b.clone(*global));
      // Public, so that the launch layer finds it by name.
      copy.setPublic();
    }
    get->setAttr("pipewave.gpu_module",
                 FlatSymbolRefAttr::get(kernels.getSymNameAttr()));
    return success();
  }
};

} // namespace
