//===- Pipelines.cpp - pipe-lower-to-llvm ---------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/MatmulChoice.h"
#include "pipewave/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void pipewave::addStagesToLinalgPasses(OpPassManager &pm) {
  pm.addPass(createPipeIsolateStages());

  // TOSA to linalg, arith and tensor.
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createPipeLowerDropout());
  fn.addPass(tosa::createTosaToLinalgNamed());
  fn.addPass(tosa::createTosaToLinalg());
  fn.addPass(createTosaToArithPass());
  fn.addPass(createTosaToTensorPass());
  pm.addPass(createCanonicalizerPass());
  // One loop nest (and one buffer) for chains of elementwise ops; reshapes
  // stay out of the matmuls, which the matmul lowerings find by name.
  pm.nest<func::FuncOp>().addPass(createPipeFuseElementwise());
}

void pipewave::addStageBufferizationPasses(OpPassManager &pm) {
  // Whole-function bufferization; results become out-parameters the caller
  // allocates (the runtime preallocates every result buffer).
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // An allocation returned twice (split backward functions do this) would
  // crash the hoisting of static allocations into out-params.
  pm.nest<func::FuncOp>().addPass(createPipeUniqueResultBuffers());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.addResultAttribute = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createCanonicalizerPass());
}

void pipewave::addStageCodeToLLVMPasses(OpPassManager &pm, bool vectors) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  if (vectors) {
    ConvertVectorToLLVMPassOptions vectorToLLVM;
    vectorToLLVM.vectorContractLowering =
        vector::VectorContractLowering::OuterProduct;
    pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  }
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void pipewave::buildLowerToLLVMPipeline(OpPassManager &pm,
                                        const LowerToLLVMOptions &options) {
  addStagesToLinalgPasses(pm);
  // Backward functions that add parameter gradients to the accumulators
  // (GEMMs with beta = 1), for every microbatch after a step's first.
  if (options.accumulate)
    pm.addPass(createPipeAccumulateGradients());
  MatmulLowering matmul = options.matmul;
  bool vectorize =
      matmul == MatmulLowering::Vector || matmul == MatmulLowering::Auto;
  if (vectorize) {
    PipeMatmulVectorizeOptions tiling;
    // auto: only the matmuls of the classes the choice gives to the
    // vectorised kernel, and only where their columns tile into vectors of
    // 8 or more; BLAS takes the others.
    if (matmul == MatmulLowering::Auto) {
      tiling.minNr = 8;
      if (options.matmulChoice.empty()) {
        std::vector<std::string> rules = MatmulChoice().rules();
        tiling.choice.assign(rules.begin(), rules.end());
      } else {
        tiling.choice.assign(options.matmulChoice.begin(),
                             options.matmulChoice.end());
      }
    }
    pm.nest<func::FuncOp>().addPass(createPipeMatmulVectorize(tiling));
    pm.addPass(createCanonicalizerPass());
  }

  addStageBufferizationPasses(pm);
  if (vectorize) {
    // Transfers on the buffers themselves (not subviews), loop-invariant
    // indices out of the k loops, then the accumulator out of them.
    OpPassManager &hoist = pm.nest<func::FuncOp>();
    hoist.addPass(memref::createFoldMemRefAliasOpsPass());
    hoist.addPass(createCSEPass());
    hoist.addPass(createLoopInvariantCodeMotionPass());
    hoist.addPass(createPipeHoistVectorTransfers());
    pm.addPass(createCanonicalizerPass());
  }

  if (matmul == MatmulLowering::Blas || matmul == MatmulLowering::Auto) {
    pm.addPass(createPipeMatmulToBlas());
    // Before the workspace plan: the calls may move past ops only while
    // every temporary has its own buffer.
    if (options.fuseUpdates)
      pm.addPass(createPipeFuseUpdates());
  }
  if (options.workspace) {
    // Host code: one-value temporaries go on the stack (the pass's doc).
    PipePlanWorkspaceOptions workspace;
    workspace.stackScalars = true;
    pm.addPass(createPipePlanWorkspace(workspace));
  }
  pm.addPass(createPipeStageABI());

  // Loops, then LLVM.
  pm.nest<func::FuncOp>().addPass(createConvertLinalgToLoopsPass());
  if (vectorize) {
    pm.nest<func::FuncOp>().addPass(createPipeLowerVectors());
    pm.addPass(createConvertVectorToSCFPass(
        VectorTransferToSCFOptions().enableFullUnroll()));
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createSCFToControlFlowPass());
  addStageCodeToLLVMPasses(pm, /*vectors=*/true);
}

void pipewave::registerConversionPasses() {
  registerPipeLoweringPasses();
  PassPipelineRegistration<LowerToLLVMOptions>(
      "pipe-lower-to-llvm",
      "Lowers the stage functions of a pipelined module to the LLVM dialect, "
      "each with a pw_stage<k>_forward wrapper of the runtime ABI "
      "(void (void *const *args, void *const *results)), and for a stage "
      "differentiated by pipe-autodiff the _backward, _backward_input and "
      "_backward_weight wrappers of its training functions",
      [](OpPassManager &pm, const LowerToLLVMOptions &options) {
        buildLowerToLLVMPipeline(pm, options);
      });
  registerLowerToGPUPipeline();
}
