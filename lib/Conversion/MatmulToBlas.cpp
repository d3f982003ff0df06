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
// A zero-filled product that only a bias add and clamp read (a linear layer
// and its ReLU: MatmulEpilogue.cpp) is written through them instead,
// straight into the element-wise op's result:
//
//   void pw_sgemm_batched_bias_clamp(float beta, <memref A>, <memref B>,
//                                    <memref H>, <memref bias>, float lo,
//                                    float hi);
//
// (and pw_sgemm_bias_clamp), H = maximumf(minimumf(A * B + bias, hi), lo);
// ReLU's backward on an input gradient likewise:
//
//   void pw_sgemm_batched_positive_mask(float beta, <memref A>, <memref B>,
//                                       <memref G>, <memref Y>);
//
// (and pw_sgemm_positive_mask), G = Y > 0 ? A * B : +0 (Y rank 2).
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

      // Transposed operands: strided views instead of copies.
      for (OpOperand *input : op.getDpsInputOperands())
        foldOperandTranspose(op, *input);
      if (std::optional<MatmulEpilogue> epilogue = findMatmulEpilogue(op)) {
        callWithEpilogue(module, op, *epilogue, rank, operandType);
        continue;
      }
      Value out = op.getDpsInitOperand(0)->get();
      float beta = 1.0f;
      if (linalg::FillOp fill = findZeroFill(op, out)) {
        fill.erase();
        beta = 0.0f;
      }
      func::FuncOp decl = getOrCreateDecl(
          module, callee,
          {b.getF32Type(), operandType, operandType, operandType});
      b.setInsertionPoint(op);
      func::CallOp::create(
          b, op.getLoc(), decl,
          productOperands(b, op.getLoc(), op, beta, out, operandType));
      op->erase();
    }
  }

  /// The helpers' leading operands: beta, then A, B and the result `out`
  /// as `operandType` (fully dynamic strided memrefs).
  static SmallVector<Value> productOperands(OpBuilder &b, Location loc,
                                            linalg::LinalgOp op, float beta,
                                            Value out, MemRefType operandType) {
    SmallVector<Value> operands = {
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(beta))};
    for (Value v : {op.getDpsInputOperand(0)->get(),
                    op.getDpsInputOperand(1)->get(), out})
      operands.push_back(memref::CastOp::create(b, loc, operandType, v));
    return operands;
  }

  func::FuncOp getOrCreateDecl(ModuleOp module, StringRef name,
                               ArrayRef<Type> inputs) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    auto b = OpBuilder::atBlockBegin(module.getBody());
    auto type = b.getFunctionType(inputs, {});
    auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
    fn.setPrivate();
    return fn;
  }

  /// The call of `op` with `epilogue`, in the element-wise op's place; the
  /// product's buffer, its fill and views, and the element-wise op go.
  void callWithEpilogue(ModuleOp module, linalg::LinalgOp op,
                        MatmulEpilogue epilogue, int64_t rank,
                        MemRefType operandType) {
    MLIRContext *ctx = &getContext();
    bool batched = rank == 3;
    bool mask = epilogue.kind == MatmulEpilogue::PositiveMask;
    // The bias as a vector, the mask as a matrix.
    MemRefType extraType = dynamicStrided(ctx, mask ? 2 : 1);
    Type f32 = Float32Type::get(ctx);
    SmallVector<Type> inputs = {f32, operandType, operandType, operandType,
                                extraType};
    if (!mask)
      inputs.append({f32, f32});
    std::string name = batched ? "pw_sgemm_batched" : "pw_sgemm";
    name += mask ? "_positive_mask" : "_bias_clamp";
    func::FuncOp decl = getOrCreateDecl(module, name, inputs);
    OpBuilder b(epilogue.generic);
    Location loc = epilogue.generic.getLoc();
    // The result with the product's rank, the extra operand with its own.
    Value out = epilogue.out;
    ArrayRef<int64_t> shape = cast<MemRefType>(out.getType()).getShape();
    if (batched && shape.size() == 2)
      out = memref::ExpandShapeOp::create(b, loc, {1, shape[0], shape[1]}, out,
                                          {{0, 1}, {2}});
    Value extra = epilogue.operand;
    int64_t extraRank = cast<MemRefType>(extra.getType()).getRank();
    if (extraRank != extraType.getRank())
      extra = memref::CollapseShapeOp::create(
          b, loc, extra,
          mask ? ArrayRef<ReassociationIndices>{{0, 1}, {2}}
               : ArrayRef<ReassociationIndices>{{0, 1}});
    auto constant = [&](float value) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
    };
    SmallVector<Value> operands =
        productOperands(b, loc, op, 0.0f, out, operandType);
    operands.push_back(memref::CastOp::create(b, loc, extraType, extra));
    if (!mask) {
      operands.push_back(constant(epilogue.lo));
      operands.push_back(constant(epilogue.hi));
    }
    func::CallOp::create(b, loc, decl, operands);

    Value c = op.getDpsInitOperand(0)->get();
    epilogue.generic->erase();
    for (Operation *view : llvm::reverse(epilogue.views))
      view->erase();
    epilogue.fill->erase();
    op->erase();
    for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
      user->erase(); // its deallocs: findMatmulEpilogue allowed no other
    c.getDefiningOp()->erase();
  }
};

} // namespace
