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

/// How cuBLAS sees one operand: a row-major `rows` x `cols` matrix per
/// batch with row stride `ld` (column stride when `trans`), batches
/// `batchStride` elements apart.
struct Operand {
  int64_t ld = 0;
  int64_t batchStride = 0;
  bool trans = false;
};

/// The layout of operand `type` (indexed by `map`) as a matrix of loop dims
/// `row` x `col` with the batch loops `batch` flattened into one stride;
/// nullopt when neither rows nor columns are contiguous, the batches are
/// not evenly spaced, or the layout is not static.
std::optional<Operand> describe(MemRefType type, AffineMap map, unsigned row,
                                unsigned col, ArrayRef<unsigned> batch,
                                ArrayRef<int64_t> sizes) {
  if (!type.hasStaticShape() || !type.isStrided())
    return std::nullopt;
  auto [strides, offset] = type.getStridesAndOffset();
  if (ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  // Element stride of each loop dimension in this operand.
  SmallVector<int64_t> loopStride(sizes.size(), 0);
  for (auto [r, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      loopStride[dim.getPosition()] += strides[r];
    else if (auto cst = dyn_cast<AffineConstantExpr>(expr);
             !cst || cst.getValue() != 0)
      return std::nullopt;
  }
  int64_t rows = sizes[row], cols = sizes[col];
  int64_t sr = loopStride[row], sc = loopStride[col];
  Operand o;
  if ((sc == 1 || cols == 1) && (rows == 1 || sr >= cols)) {
    o.ld = std::max<int64_t>({sr, cols, 1});
  } else if ((sr == 1 || rows == 1) && (cols == 1 || sc >= rows)) {
    o.trans = true;
    o.ld = std::max<int64_t>({sc, rows, 1});
  } else {
    return std::nullopt;
  }
  // Batches: stride(batch[i]) == base * product of the later batch sizes.
  int64_t inner = 1;
  bool haveBase = false;
  for (unsigned d : llvm::reverse(batch)) {
    if (sizes[d] != 1) {
      if (!haveBase) {
        if (loopStride[d] % inner != 0)
          return std::nullopt;
        o.batchStride = loopStride[d] / inner;
        haveBase = true;
      } else if (loopStride[d] != o.batchStride * inner) {
        return std::nullopt;
      }
    }
    inner *= sizes[d];
  }
  return o;
}

/// The dims of `op` as one gemm (one m, n and k loop, any batch loops) when
/// it is an f32 contraction (mul then add) on buffers.
std::optional<linalg::ContractionDimensions> gemmDims(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getElementType().isF32())
      return std::nullopt;
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return std::nullopt;
  return *dims;
}

/// When `value` is a buffer (an allocation, or a view of the stage's
/// workspace placed by pipe-plan-workspace) written only by a
/// linalg.transpose of the last two dimensions (earlier in the same block)
/// and otherwise only read by `matmul` and deallocated, replaces the operand
/// by a transposed view of the transpose's input and erases the transpose.
/// Returns the buffer of the folded transpose (for erasing it with the
/// matmul), or null. (A workspace view's bytes stay in the plan, unused.)
Value foldTranspose(OpOperand &operand, Operation *matmul) {
  Value value = operand.get();
  if (!value.getDefiningOp<memref::AllocOp>() &&
      !value.getDefiningOp<memref::ViewOp>())
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
      if (getStream(op) && gemmDims(op))
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
    linalg::ContractionDimensions dims = *gemmDims(op);
    unsigned dm = dims.m[0], dn = dims.n[0], dk = dims.k[0];
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    if (llvm::any_of(sizes, ShapedType::isDynamic))
      return;
    OpOperand *opA = op.getDpsInputOperand(0);
    OpOperand *opB = op.getDpsInputOperand(1);
    OpOperand *opC = op.getDpsInitOperand(0);
    // The operand indexed by (m, k) is A, the one by (k, n) is B.
    AffineMap mapA = op.getMatchingIndexingMap(opA);
    if (!mapA.isFunctionOfDim(dm))
      std::swap(opA, opB);
    Value a = opA->get(), b = opB->get(), c = opC->get();
    auto desc = [&](OpOperand *operand, unsigned row, unsigned col) {
      return describe(cast<MemRefType>(operand->get().getType()),
                      op.getMatchingIndexingMap(operand), row, col, dims.batch,
                      sizes);
    };
    std::optional<Operand> da = desc(opA, dm, dk);
    std::optional<Operand> db = desc(opB, dk, dn);
    std::optional<Operand> dc = desc(opC, dm, dn);
    if (!da || !db || !dc || dc->trans)
      return; // left to pipe-gpu-map-kernels
    int64_t m = sizes[dm], n = sizes[dn], k = sizes[dk];
    int64_t batch = 1;
    for (unsigned d : dims.batch)
      batch *= sizes[d];

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
