//===- MatmulToBlas.cpp - pipe-matmul-to-blas -----------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// f32 matmuls on buffers become calls of the runtime helpers
//
//   void pw_sgemm_batched(float beta, <memref A>, <memref B>, <memref C>);
//   void pw_sgemm(float beta, <memref A>, <memref B>, <memref C>);
//
// computing C = A * B + beta * C (per batch). An operand that is a copy made
// by a linalg.transpose swapping the last two dimensions becomes a strided
// view of the copy's source (the helpers pass it to BLAS as transposed).
// Operands are passed as fully dynamic strided memrefs, which
// convert-func-to-llvm expands into (allocated, aligned, offset, sizes...,
// strides...). The helpers live in lib/Target/CPU/Kernels.c
// (libpipewave_cpu_kernels) and call OpenBLAS.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "MatmulUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEMATMULTOBLAS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// `memref<?x...x?xf32, strided<[?, ...], offset: ?>>` of rank `rank`.
MemRefType dynamicStrided(MLIRContext *ctx, int64_t rank) {
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides);
  return MemRefType::get(shape, Float32Type::get(ctx), layout);
}

struct PipeMatmulToBlasPass
    : public pipewave::impl::PipeMatmulToBlasBase<PipeMatmulToBlasPass> {
  using PipeMatmulToBlasBase::PipeMatmulToBlasBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (isPlainF32Matmul(op) && op.hasPureBufferSemantics())
        matmuls.push_back(op);
    });

    OpBuilder b(&getContext());
    for (linalg::LinalgOp op : matmuls) {
      bool batched = isa<linalg::BatchMatmulOp>(op);
      int64_t rank = batched ? 3 : 2;
      StringRef callee = batched ? "pw_sgemm_batched" : "pw_sgemm";
      MemRefType operandType = dynamicStrided(&getContext(), rank);
      func::FuncOp decl = getOrCreateDecl(module, callee, operandType);

      // Transposed operands: strided views instead of copies.
      for (OpOperand *input : op.getDpsInputOperands())
        foldOperandTranspose(op, *input);
      Value out = op.getDpsInitOperand(0)->get();
      float beta = 1.0f;
      if (linalg::FillOp fill = findZeroFill(op, out)) {
        fill.erase();
        beta = 0.0f;
      }
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<Value> operands = {
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(beta))};
      for (Value v : {op.getDpsInputOperand(0)->get(),
                      op.getDpsInputOperand(1)->get(), out})
        operands.push_back(memref::CastOp::create(b, loc, operandType, v));
      func::CallOp::create(b, loc, decl, operands);
      op->erase();
    }
  }

  func::FuncOp getOrCreateDecl(ModuleOp module, StringRef name,
                               MemRefType operandType) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    auto b = OpBuilder::atBlockBegin(module.getBody());
    auto type = b.getFunctionType(
        {b.getF32Type(), operandType, operandType, operandType}, {});
    auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
    fn.setPrivate();
    return fn;
  }
};

} // namespace
