//===- MatmulToCublas.cpp - pipe-matmul-to-cublas -------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// f32 (batched) matmuls on buffers become calls of pw_cuda_sgemm (the launch
// layer, runtime/cuda), which swaps the operands for cuBLAS's column-major
// convention. Each operand is described by its pointer (base advanced by the
// static offset), its leading dimension, its batch stride and whether it is
// stored transposed, all read from its static strided layout.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "../MatmulUtils.h"
#include "GpuUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEMATMULTOCUBLAS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// How cuBLAS sees one row-major operand of `rows` x `cols` per batch.
struct Operand {
  int64_t ld = 0;
  int64_t batchStride = 0;
  bool trans = false;
};

/// The operand layout of a static strided memref of rank 2 or 3 (batch
/// first), or nullopt when neither its rows nor its columns are contiguous.
std::optional<Operand> describe(MemRefType type) {
  if (!type.hasStaticShape() || !type.isStrided())
    return std::nullopt;
  auto [strides, offset] = type.getStridesAndOffset();
  if (ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t rank = type.getRank();
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  int64_t sr = strides[rank - 2], sc = strides[rank - 1];
  Operand o;
  if (rank == 3)
    o.batchStride = strides[0];
  if (sc == 1 || cols == 1) {
    o.ld = std::max<int64_t>({sr, cols, 1});
  } else if (sr == 1 || rows == 1) {
    o.trans = true;
    o.ld = std::max<int64_t>({sc, rows, 1});
  } else {
    return std::nullopt;
  }
  return o;
}

/// The linalg.fill of zero into `out` that `matmul` absorbs (beta = 0):
/// earlier in the block with only side-effect free ops in between.
linalg::FillOp findZeroFill(Operation *matmul, Value out) {
  for (Operation *op = matmul->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (fill.getOutputs().front() != out)
        return nullptr;
      if (!matchPattern(fill.getInputs().front(), m_AnyZeroFloat()))
        return nullptr;
      return fill;
    }
    if (!isMemoryEffectFree(op))
      return nullptr;
  }
  return nullptr;
}

/// When `value` is a buffer written only by a linalg.transpose of the last
/// two dimensions (earlier in the same block) and otherwise only read by
/// `matmul` and deallocated, replaces the operand by a transposed view of
/// the transpose's input and erases the transpose.
/// Returns the buffer of the folded transpose (for erasing it with the
/// matmul), or null.
Value foldTranspose(OpOperand &operand, Operation *matmul) {
  Value value = operand.get();
  if (!value.getDefiningOp<memref::AllocOp>())
    return nullptr;
  linalg::TransposeOp transpose;
  for (Operation *user : value.getUsers()) {
    if (user == matmul || isa<memref::DeallocOp>(user))
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || transpose || t.getInit() != value ||
        t->getBlock() != matmul->getBlock() || !t->isBeforeInBlock(matmul))
      return nullptr;
    transpose = t;
  }
  if (!transpose)
    return nullptr;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
    return nullptr;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return nullptr;
  // Nothing may write the transposed input between the two ops.
  for (Operation *op = transpose->getNextNode(); op != matmul;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !isa<linalg::FillOp>(op))
      return nullptr;
  OpBuilder b(matmul);
  SmallVector<AffineExpr> exprs;
  for (int64_t p : perm)
    exprs.push_back(b.getAffineDimExpr(p));
  auto map = AffineMap::get(rank, 0, exprs, b.getContext());
  Value view = memref::TransposeOp::create(
      b, transpose.getLoc(), transpose.getInput(), AffineMapAttr::get(map));
  operand.set(view);
  transpose->erase();
  return value;
}

struct PipeMatmulToCublasPass
    : public pipewave::impl::PipeMatmulToCublasBase<PipeMatmulToCublasPass> {
  using PipeMatmulToCublasBase::PipeMatmulToCublasBase;

  void runOnOperation() override {
    int32_t mode = precision == "fp32"   ? 0
                   : precision == "tf32" ? 1
                   : precision == "bf16" ? 2
                                         : -1;
    if (mode < 0) {
      getOperation().emitError("pipe-matmul-to-cublas: precision must be "
                               "fp32, tf32 or bf16, got '")
          << precision << "'";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isPlainF32Matmul(op) && op.hasPureBufferSemantics() && getStream(op))
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls)
      rewrite(op, mode);
  }

  void rewrite(linalg::LinalgOp op, int32_t mode) {
    SmallVector<Value> folded;
    for (OpOperand *input : op.getDpsInputOperands())
      if (Value buffer = foldTranspose(*input, op))
        folded.push_back(buffer);
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    auto aType = cast<MemRefType>(a.getType());
    auto cType = cast<MemRefType>(c.getType());
    std::optional<Operand> da = describe(aType);
    std::optional<Operand> db = describe(cast<MemRefType>(b.getType()));
    std::optional<Operand> dc = describe(cType);
    if (!da || !db || !dc || dc->trans)
      return; // left to pipe-gpu-map-kernels
    int64_t rank = cType.getRank();
    int64_t m = cType.getDimSize(rank - 2), n = cType.getDimSize(rank - 1);
    int64_t k = aType.getDimSize(rank - 1);
    int64_t batch = rank == 3 ? cType.getDimSize(0) : 1;

    Value out = c;
    float beta = 1.0f;
    if (linalg::FillOp fill = findZeroFill(op, out)) {
      fill.erase();
      beta = 0.0f;
    }
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder builder(op);
    Location loc = op.getLoc();
    auto i32 = builder.getI32Type(), i64 = builder.getI64Type();
    auto f32 = builder.getF32Type();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto type =
        builder.getFunctionType({i32, i32, i32, i64, i64, i64, ptr, i64, i64,
                                 ptr, i64, i64, f32, ptr, i64, i64, i64, ptr},
                                {});
    func::FuncOp decl = getOrCreateDecl(module, "pw_cuda_sgemm", type);
    auto c32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, i32, v);
    };
    auto c64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, i64, v);
    };
    SmallVector<Value> args = {
        c32(mode),
        c32(da->trans),
        c32(db->trans),
        c64(m),
        c64(n),
        c64(k),
        memrefPointer(builder, loc, a, /*withOffset=*/true),
        c64(da->ld),
        c64(da->batchStride),
        memrefPointer(builder, loc, b, /*withOffset=*/true),
        c64(db->ld),
        c64(db->batchStride),
        arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(beta)),
        memrefPointer(builder, loc, c, /*withOffset=*/true),
        c64(dc->ld),
        c64(dc->batchStride),
        c64(batch),
        getStream(op)};
    func::CallOp::create(builder, loc, decl, args);
    op->erase();
    // The transposed copies are gone: so are their buffers.
    for (Value buffer : folded) {
      for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
        user->erase(); // only deallocations are left
      buffer.getDefiningOp()->erase();
    }
  }
};

} // namespace
