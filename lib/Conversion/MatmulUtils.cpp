//===- MatmulUtils.cpp - Shared helpers of the matmul lowerings -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "MatmulUtils.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using pipewave::rootBuffer;

linalg::FillOp pipewave::findZeroFill(Operation *matmul, Value out) {
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

Value pipewave::rootBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else if (auto transpose = dyn_cast<memref::TransposeOp>(def))
      v = transpose.getIn();
    else
      break;
  }
  return v;
}

namespace {

/// Whether `arg` is an out-parameter of its function.
bool isOutParam(BlockArgument arg) {
  auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return fn && arg.getOwner()->isEntryBlock() &&
         fn.getArgAttr(arg.getArgNumber(), "bufferize.result");
}

/// Whether `op` may write a buffer whose root is `root`. Unknown effects
/// count as writes.
bool mayWrite(Operation *op, Value root) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
           llvm::any_of(op->getRegions(), [&](Region &region) {
             return llvm::any_of(region.getOps(), [&](Operation &inner) {
               return mayWrite(&inner, root);
             });
           });
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (const MemoryEffects::EffectInstance &effect : effects) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
      continue;
    Value written = effect.getValue();
    if (!written || rootBuffer(written) == root)
      return true;
    // Two arguments may be the same buffer, except an out-parameter of a
    // function (buffer-results-to-out-params: the caller passes a buffer of
    // its own for each result).
    auto writtenArg = dyn_cast<BlockArgument>(rootBuffer(written));
    if (writtenArg && isa<BlockArgument>(root) && !isOutParam(writtenArg))
      return true;
  }
  return false;
}

} // namespace

bool pipewave::mayWriteBuffer(Operation *op, Value buffer) {
  return mayWrite(op, rootBuffer(buffer));
}

bool pipewave::foldOperandTranspose(Operation *matmul, OpOperand &operand) {
  Value tmp = operand.get();
  auto alloc = tmp.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != matmul->getBlock())
    return false;
  linalg::TransposeOp transpose;
  memref::DeallocOp dealloc;
  for (OpOperand &use : tmp.getUses()) {
    Operation *user = use.getOwner();
    if (user == matmul)
      continue;
    if (auto t = dyn_cast<linalg::TransposeOp>(user);
        t && !transpose && t.getInit() == tmp) {
      transpose = t;
      continue;
    }
    if (auto d = dyn_cast<memref::DeallocOp>(user); d && !dealloc) {
      dealloc = d;
      continue;
    }
    return false;
  }
  // Only the matmul's own operand may use the temporary.
  for (OpOperand &other : matmul->getOpOperands())
    if (&other != &operand && other.get() == tmp)
      return false;
  if (!transpose || transpose->getBlock() != matmul->getBlock() ||
      !transpose->isBeforeInBlock(matmul))
    return false;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = static_cast<int64_t>(perm.size());
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return false;
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return false;
  Value src = transpose.getInput();
  Value root = rootBuffer(src);
  for (Operation *op = transpose->getNextNode(); op != matmul;
       op = op->getNextNode())
    if (mayWrite(op, root))
      return false;

  OpBuilder b(matmul);
  SmallVector<unsigned> permutation;
  for (int64_t p : perm)
    permutation.push_back(static_cast<unsigned>(p));
  AffineMap map = AffineMap::getPermutationMap(permutation, b.getContext());
  Value view = memref::TransposeOp::create(b, transpose.getLoc(), src,
                                           AffineMapAttr::get(map));
  operand.set(view);
  transpose->erase();
  if (dealloc)
    dealloc->erase();
  alloc->erase();
  return true;
}
