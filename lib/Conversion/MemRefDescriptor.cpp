//===- MemRefDescriptor.cpp - Descriptors of contiguous buffers -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "MemRefDescriptor.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

Type pipewave::memrefDescriptorType(MemRefType type) {
  MLIRContext *ctx = type.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (type.getRank() > 0) {
    auto array = LLVM::LLVMArrayType::get(i64, type.getRank());
    fields.push_back(array);
    fields.push_back(array);
  }
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

Value pipewave::buildContiguousMemRef(OpBuilder &b, Location loc, Value ptr,
                                      MemRefType type) {
  auto i64 = b.getI64Type();
  Value desc = LLVM::PoisonOp::create(b, loc, memrefDescriptorType(type));
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(0),
                                     ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, constant(type.getDimSize(d)), ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, constant(stride),
                                       ArrayRef<int64_t>{4, d});
    stride *= type.getDimSize(d);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}
