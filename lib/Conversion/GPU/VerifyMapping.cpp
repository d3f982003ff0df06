//===- VerifyMapping.cpp - pipe-verify-gpu-mapping ------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEVERIFYGPUMAPPING
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// What the host may not do after the mapping, or null.
const char *hostViolation(Operation *op) {
  if (isa<linalg::LinalgOp>(op))
    return "a linalg op left on the host";
  if (isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, scf::ForallOp,
          affine::AffineForOp, affine::AffineParallelOp>(op))
    return "a loop left on the host";
  if (isa<memref::LoadOp, affine::AffineLoadOp, vector::LoadOp,
          vector::TransferReadOp>(op))
    return "a host load of a device buffer";
  if (isa<memref::StoreOp, affine::AffineStoreOp, vector::StoreOp,
          vector::TransferWriteOp>(op))
    return "a host store to a device buffer";
  if (isa<memref::CopyOp>(op))
    return "a host copy of device buffers";
  return nullptr;
}

struct PipeVerifyGpuMappingPass
    : public pipewave::impl::PipeVerifyGpuMappingBase<
          PipeVerifyGpuMappingPass> {
  using PipeVerifyGpuMappingBase::PipeVerifyGpuMappingBase;

  void runOnOperation() override {
    bool failed = false;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      fn.walk([&](Operation *op) {
        if (const char *what = hostViolation(op)) {
          op->emitError() << "pipe-verify-gpu-mapping: " << what << " in '@"
                          << fn.getSymName() << "' ('" << op->getName()
                          << "'); every computation on device buffers must "
                             "run in a kernel";
          failed = true;
        }
      });
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
