//===- GpuUtils.h - Helpers of the GPU lowering passes ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_CONVERSION_GPU_GPUUTILS_H
#define PIPEWAVE_LIB_CONVERSION_GPU_GPUUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace pipewave {

/// The argument attribute pipe-gpu-stream-args puts on the stream argument.
constexpr llvm::StringLiteral kStreamAttr = "pipewave.stream";

/// The stream argument of the function around `op` (the last argument,
/// marked pipewave.stream), or null.
mlir::Value getStream(mlir::Operation *op);

/// The private declaration `name : type` in `module`, created on first use.
mlir::func::FuncOp getOrCreateDecl(mlir::ModuleOp module, llvm::StringRef name,
                                   mlir::FunctionType type);

/// The aligned pointer of `memref` advanced by its static offset, as an
/// !llvm.ptr (what a bare-pointer kernel argument or a cuBLAS operand
/// takes when `withOffset`; the base pointer otherwise).
mlir::Value memrefPointer(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value memref, bool withOffset);

} // namespace pipewave

#endif // PIPEWAVE_LIB_CONVERSION_GPU_GPUUTILS_H
