//===- Passes.h - Lowering stage functions to native code ---------*- C++
//-*-===//
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

/// Options of the `pipe-lower-to-llvm` pipeline.
struct LowerToLLVMOptions
    : public mlir::PassPipelineOptions<LowerToLLVMOptions> {
  Option<MatmulLowering> matmul{
      *this, "matmul",
      llvm::cl::desc("How f32 matmuls run: auto (vector where the columns "
                     "tile into vectors of 8 or more, else blas), blas "
                     "(OpenBLAS through pw_sgemm_batched), vector (MLIR "
                     "tiling and vectorization) or loops (scalar loops left "
                     "to LLVM)"),
      llvm::cl::init(MatmulLowering::Auto),
      llvm::cl::values(
          clEnumValN(MatmulLowering::Auto, "auto",
                     "vector where the columns tile well, else blas"),
          clEnumValN(MatmulLowering::Blas, "blas", "OpenBLAS"),
          clEnumValN(MatmulLowering::Vector, "vector",
                     "MLIR tiling and vectorization"),
          clEnumValN(MatmulLowering::Loops, "loops", "scalar loops"))};
};

/// Appends the lowering of the stage functions of a pipelined module (after
/// pipe-schedule) to the LLVM dialect: pipe-isolate-stages, TOSA to
/// linalg/arith/tensor, one-shot bufferization of whole functions with
/// results turned into caller-allocated out-params (each returned allocation
/// made unique first, pipe-unique-result-buffers), deallocation, tiled and
/// vectorized matmuls (matmul=vector) or BLAS calls (matmul=blas) or both
/// (matmul=auto), the ABI wrappers (pipe-stage-abi), then loops and the
/// conversions to LLVM.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const LowerToLLVMOptions &options);

/// Registers the conversion passes (registerPipeLoweringPasses) and the
/// `pipe-lower-to-llvm` pipeline.
void registerConversionPasses();

} // namespace pipewave

#endif // PIPEWAVE_CONVERSION_PASSES_H
