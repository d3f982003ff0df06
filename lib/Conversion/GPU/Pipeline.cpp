//===- Pipeline.cpp - pipe-lower-to-gpu -----------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

#ifndef PIPEWAVE_CUDA_TOOLKIT_DIR
#define PIPEWAVE_CUDA_TOOLKIT_DIR ""
#endif

StringRef pipewave::defaultCudaToolkitPath() {
  return PIPEWAVE_CUDA_TOOLKIT_DIR;
}

LogicalResult pipewave::checkLowerToGPUOptions(const LowerToGPUOptions &options,
                                               std::string &message) {
  const std::string &p = options.precision, &f = options.format;
  if (p != "fp32" && p != "tf32" && p != "bf16") {
    message = "pipe-lower-to-gpu: precision must be fp32, tf32 or bf16, "
              "got '" +
              p + "'";
    return failure();
  }
  if (f != "bin" && f != "fatbin" && f != "isa") {
    message =
        "pipe-lower-to-gpu: format must be bin, fatbin or isa, got '" + f + "'";
    return failure();
  }
  if (StringRef(options.cudaArch).starts_with("sm_") == false) {
    message = "pipe-lower-to-gpu: cuda-arch must be sm_<NN>, got '" +
              options.cudaArch + "'";
    return failure();
  }
  if (f != "isa" && options.toolkit.empty() &&
      defaultCudaToolkitPath().empty()) {
    message = "pipe-lower-to-gpu: format=" + f +
              " needs the CUDA toolkit (ptxas, fatbinary, libdevice) and "
              "this build found none: pass toolkit=<CUDA root> or use "
              "format=isa";
    return failure();
  }
  return success();
}

void pipewave::buildLowerToGPUPipeline(OpPassManager &pm,
                                       const LowerToGPUOptions &options) {
  // The front of pipe-lower-to-llvm: TOSA to linalg, one nest per chain of
  // element-wise ops, bufferization with results as out-params.
  addStagesToLinalgPasses(pm);
  addStageBufferizationPasses(pm);

  // Temporaries in the stage's workspace (one device buffer the runtime
  // allocates once), wrappers with the stream, cuBLAS matmuls, pipewave's
  // kernels.
  pm.addPass(createPipePlanWorkspace());
  pm.addPass(createPipeStageABI());
  pm.addPass(createPipeGpuStreamArgs());
  PipeMatmulToCublasOptions cublas;
  cublas.precision = options.precision;
  pm.addPass(createPipeMatmulToCublas(cublas));
  pm.addPass(createPipeGpuMapKernels());
  pm.addPass(createPipeVerifyGpuMapping());

  // Kernels to NVVM (bare pointers: static shapes), then the image.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.cudaArch;
  target.features = options.ptxFeatures;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit.empty() ? defaultCudaToolkitPath().str()
                                               : std::string(options.toolkit);
  pm.addPass(createGpuModuleToBinaryPass(binary));

  // Host code: calls of the launch layer, then LLVM.
  pm.addPass(createPipeGpuHostToCalls());
  addStageCodeToLLVMPasses(pm, /*vectors=*/false);
}

void pipewave::registerLowerToGPUPipeline() {
  registerPassPipeline(
      "pipe-lower-to-gpu",
      "Lowers the stage functions of a pipelined module to CUDA: pipewave's "
      "own kernels in one gpu.module per stage, f32 matmuls through cuBLAS "
      "(pw_cuda_sgemm), host code calling the launch layer "
      "(libpipewave_cuda), and wrappers "
      "void pw_stage<k>_forward(void *const *args, void *const *results, "
      "void *stream) on device pointers",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> error) {
        LowerToGPUOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string message;
        if (failed(checkLowerToGPUOptions(options, message)))
          return error(message);
        buildLowerToGPUPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(LowerToGPUOptions());
      });
}
