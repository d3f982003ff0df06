//===- GpuUtils.cpp - Shared helpers of the GPU lowering passes -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "GpuUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

func::FuncOp pipewave::getOrCreateDecl(ModuleOp module, StringRef name,
                                       FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  auto b = OpBuilder::atBlockBegin(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

Value pipewave::memrefPointer(OpBuilder &b, Location loc, Value memref,
                              bool withOffset) {
  auto type = cast<MemRefType>(memref.getType());
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  if (withOffset) {
    int64_t offset = type.getStridesAndOffset().second;
    unsigned bytes = type.getElementTypeBitWidth() / 8;
    if (offset != 0)
      base = arith::AddIOp::create(
          b, loc, base, arith::ConstantIndexOp::create(b, loc, offset * bytes));
  }
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), asInt);
}
