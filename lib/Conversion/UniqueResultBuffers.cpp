//===- UniqueResultBuffers.cpp - pipe-unique-result-buffers ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Gives every allocation a bufferized function returns more than once a
// buffer of its own per result, so that buffer-results-to-out-params can
// hoist each of them into its out-parameter.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEUNIQUERESULTBUFFERS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// Replaces the second and later occurrences of a `memref.alloc` among the
/// operands of `ret` by a copy into a fresh allocation of the same type.
void uniquifyReturnedAllocs(func::ReturnOp ret) {
  llvm::SmallPtrSet<Value, 8> seen;
  OpBuilder b(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get();
    if (seen.insert(value).second)
      continue;
    auto alloc = value.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      continue;
    auto fresh = memref::AllocOp::create(
        b, alloc.getLoc(), alloc.getType(), alloc.getDynamicSizes(),
        alloc.getSymbolOperands(), alloc.getAlignmentAttr());
    memref::CopyOp::create(b, ret.getLoc(), value, fresh);
    operand.set(fresh);
  }
}

struct PipeUniqueResultBuffersPass
    : public pipewave::impl::PipeUniqueResultBuffersBase<
          PipeUniqueResultBuffersPass> {
  using PipeUniqueResultBuffersBase::PipeUniqueResultBuffersBase;

  void runOnOperation() override {
    getOperation().walk(
        [](func::ReturnOp ret) { uniquifyReturnedAllocs(ret); });
  }
};

} // namespace
