//===- MemRefDescriptor.h - Descriptors of contiguous buffers ---*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The stage ABI (CPU) and the GPU launch calls both hand the lowered code a
// plain pointer to a contiguous, statically shaped buffer; this builds the
// LLVM memref descriptor for it.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_CONVERSION_MEMREFDESCRIPTOR_H
#define PIPEWAVE_LIB_CONVERSION_MEMREFDESCRIPTOR_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pipewave {

/// The LLVM struct of a memref descriptor of rank `type.getRank()`.
mlir::Type memrefDescriptorType(mlir::MemRefType type);

/// The descriptor of a contiguous buffer at `ptr` (identity layout, offset
/// 0, row-major strides), cast back to `type`.
mlir::Value buildContiguousMemRef(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value ptr, mlir::MemRefType type);

} // namespace pipewave

#endif // PIPEWAVE_LIB_CONVERSION_MEMREFDESCRIPTOR_H
