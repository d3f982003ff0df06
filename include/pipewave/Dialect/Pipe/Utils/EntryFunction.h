//===- EntryFunction.h - Finding and checking the entry ---------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_UTILS_ENTRYFUNCTION_H
#define PIPEWAVE_DIALECT_PIPE_UTILS_ENTRYFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace pipewave::pipe {

/// Returns the entry function `name` of `module` with a body of one block, or
/// emits an error naming `passName` and returns null.
mlir::func::FuncOp lookupEntry(mlir::ModuleOp module, llvm::StringRef name,
                               llvm::StringRef passName);

/// Returns the operation of `block` that contains `op` (`op` itself when it is
/// directly in `block`), or null.
mlir::Operation *getTopLevelAncestor(mlir::Block &block, mlir::Operation *op);

/// Returns the `pipe.name` of argument `index` of `fn`, or "#<index>".
std::string getArgName(mlir::func::FuncOp fn, unsigned index);

/// True if argument `index` of `fn` is marked `pipe.param`.
bool isParam(mlir::func::FuncOp fn, unsigned index);

} // namespace pipewave::pipe

#endif // PIPEWAVE_DIALECT_PIPE_UTILS_ENTRYFUNCTION_H
