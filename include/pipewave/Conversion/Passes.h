//===- Passes.h - Lowering stage functions to native code -------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CONVERSION_PASSES_H
#define PIPEWAVE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>

// The enums of the enumerated options (PassEnums.td).
#include "pipewave/Conversion/PassEnums.h.inc"

namespace pipewave {

#define GEN_PASS_DECL
#include "pipewave/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pipewave/Conversion/Passes.h.inc"

/// The function attribute in which pipe-plan-workspace records the size in
/// bytes of the workspace it gave a function (read by pipe-stage-abi).
inline constexpr llvm::StringLiteral kWorkspaceBytesAttr =
    "pipewave.workspace_bytes";

/// pipe-accumulate-gradients: on a stage function, the accumulating
/// variants of its `pipe.bwd` and `pipe.bwd_weight`; on an argument of such
/// a variant, the index of the result it accumulates into.
inline constexpr llvm::StringLiteral kAccumulatingBwdAttr = "pipewave.bwd_acc";
inline constexpr llvm::StringLiteral kAccumulatingBwdWeightAttr =
    "pipewave.bwd_weight_acc";
inline constexpr llvm::StringLiteral kAccumulatesAttr = "pipewave.accumulates";
/// The module's dictionary in which pipe-stage-abi records, by wrapper name,
/// which results of an accumulating variant accumulate (array<i32>, one
/// entry per result).
inline constexpr llvm::StringLiteral kAccumulatingResultsAttr =
    "pipewave.accumulating";

/// The spellings of MatmulLowering for an option (`matmul`).
inline llvm::cl::ValuesClass matmulLoweringValues() {
  return llvm::cl::values(
      clEnumValN(MatmulLowering::Auto, "auto",
                 "vector or blas per matmul class, by the matmul choice"),
      clEnumValN(MatmulLowering::Blas, "blas", "OpenBLAS"),
      clEnumValN(MatmulLowering::Vector, "vector",
                 "MLIR tiling and vectorization"),
      clEnumValN(MatmulLowering::Loops, "loops", "scalar loops"));
}

/// Options of the `pipe-lower-to-llvm` pipeline.
struct LowerToLLVMOptions
    : public mlir::PassPipelineOptions<LowerToLLVMOptions> {
  Option<MatmulLowering> matmul{
      *this, "matmul",
      llvm::cl::desc("How f32 matmuls run: auto (vector or blas by the "
                     "matmul's class, see matmul-choice; blas where the "
                     "columns do not tile into vectors of 8), blas "
                     "(OpenBLAS through pw_sgemm_batched), vector (MLIR "
                     "tiling and vectorization) or loops (scalar loops left "
                     "to LLVM)"),
      llvm::cl::init(MatmulLowering::Auto), matmulLoweringValues()};
  ListOption<std::string> matmulChoice{
      *this, "matmul-choice",
      llvm::cl::desc("matmul=auto: rules CLASS:KERNEL applied in order to "
                     "the built-in default table (pipe-matmul-vectorize's "
                     "choice, pipewave/Conversion/MatmulChoice.h); empty: "
                     "the default")};
  Option<bool> workspace{
      *this, "workspace",
      llvm::cl::desc("Place the temporaries of every stage function in one "
                     "workspace buffer the runtime allocates once "
                     "(pipe-plan-workspace); false: they are allocated and "
                     "freed at every call"),
      llvm::cl::init(true)};
  Option<bool> accumulate{
      *this, "accumulate",
      llvm::cl::desc("Give every backward an accumulating variant that adds "
                     "parameter gradients to their accumulators (GEMMs with "
                     "beta = 1; pipe-accumulate-gradients); false: the "
                     "runtime adds every microbatch's gradient itself"),
      llvm::cl::init(true)};
  Option<bool> fuseUpdates{
      *this, "fuse-updates",
      llvm::cl::desc("Let the BLAS call that writes a parameter's gradient "
                     "last also take the parameter, so that it may run the "
                     "parameter's SGD update (pipe-fuse-updates); false: "
                     "the optimizer updates every parameter after the "
                     "backward"),
      llvm::cl::init(true)};
};

/// Appends the front of every stage lowering: pipe-isolate-stages, TOSA to
/// linalg, arith and tensor, and one loop nest per chain of element-wise
/// ops (pipe-fuse-elementwise, which keeps reshapes out of the matmuls).
void addStagesToLinalgPasses(mlir::OpPassManager &pm);

/// Appends whole-function bufferization of the stage code with results as
/// caller-allocated out-params (each returned allocation made unique first,
/// pipe-unique-result-buffers), deallocation and a canonicalization.
void addStageBufferizationPasses(mlir::OpPassManager &pm);

/// Appends the host side's conversions to the LLVM dialect (strided
/// metadata, affine, memref, with `vectors` the vector dialect, arith, func,
/// control flow, ub), the cast reconciliation and a canonicalization.
void addStageCodeToLLVMPasses(mlir::OpPassManager &pm, bool vectors);

/// Appends the lowering of the stage functions of a pipelined module (after
/// pipe-schedule) to the LLVM dialect: pipe-isolate-stages, TOSA to
/// linalg/arith/tensor, one-shot bufferization of whole functions with
/// results turned into caller-allocated out-params (each returned allocation
/// made unique first, pipe-unique-result-buffers), deallocation, tiled and
/// vectorized matmuls (matmul=vector) or BLAS calls (matmul=blas) or each
/// by its class (matmul=auto, matmul-choice), the temporaries in one workspace
/// per function (pipe-plan-workspace, unless workspace=false), the ABI wrappers
/// (pipe-stage-abi), then loops and the
/// conversions to LLVM.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const LowerToLLVMOptions &options);

/// Options of the `pipe-lower-to-gpu` pipeline.
struct LowerToGPUOptions : public mlir::PassPipelineOptions<LowerToGPUOptions> {
  Option<std::string> cudaArch{
      *this, "cuda-arch",
      llvm::cl::desc("GPU architecture the kernels are compiled for"),
      llvm::cl::init("sm_90")};
  Option<std::string> ptxFeatures{
      *this, "ptx-features",
      llvm::cl::desc("PTX features of the NVVM target (PTX ISA version)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Math mode of the cuBLAS matmuls: fp32 (IEEE), tf32 "
                     "(tensor cores on fp32 data) or bf16 (bf16 products, "
                     "fp32 accumulation and data)"),
      llvm::cl::init("fp32")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel image embedded in the host code: bin (cubin), "
                     "fatbin or isa (PTX text, needs no toolkit)"),
      llvm::cl::init("fatbin")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root (ptxas, fatbinary, libdevice); "
                     "empty: the one found when pipewave was configured"),
      llvm::cl::init("")};
};

/// Appends the lowering of the stage functions of a pipelined module to
/// CUDA: the front of pipe-lower-to-llvm (TOSA to linalg, elementwise
/// fusion, bufferization with out-params), the temporaries in a workspace
/// (pipe-plan-workspace), the ABI wrappers with a trailing
/// stream argument (`void (void *const *args, void *const *results,
/// void *stream)`, device pointers), f32 matmuls as pw_cuda_sgemm (cuBLAS)
/// calls, every other linalg op as one of pipewave's kernels in the stage's
/// gpu.module (pipe-gpu-map-kernels), the mapping check
/// (pipe-verify-gpu-mapping), NVVM with bare-pointer kernels, the kernel
/// image (gpu-module-to-binary), the host side as calls of the launch layer
/// (pipe-gpu-host-to-calls) and the host conversions to LLVM. Options are
/// checked by the registered pipeline; call checkLowerToGPUOptions first.
void buildLowerToGPUPipeline(mlir::OpPassManager &pm,
                             const LowerToGPUOptions &options);

/// Checks the options of pipe-lower-to-gpu; the message says what is wrong
/// (also that format=bin/fatbin needs a toolkit where this build found
/// none and none was given).
mlir::LogicalResult checkLowerToGPUOptions(const LowerToGPUOptions &options,
                                           std::string &message);

/// The CUDA toolkit root CMake found when pipewave was configured, or "".
llvm::StringRef defaultCudaToolkitPath();

/// Registers the `pipe-lower-to-gpu` pipeline (called by
/// registerConversionPasses).
void registerLowerToGPUPipeline();

/// Registers the conversion passes (registerPipeLoweringPasses) and the
/// `pipe-lower-to-llvm` pipeline.
void registerConversionPasses();

} // namespace pipewave

#endif // PIPEWAVE_CONVERSION_PASSES_H
