//===- LowerDropout.cpp - pipe-lower-dropout ------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `pipe.dropout` to one elementwise `linalg.generic` computing the
// mask of include/pipewave/Support/DropoutRng.h in 64-bit integer arithmetic
// (wrapping, as the reference's uint64_t).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Support/DropoutRng.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPELOWERDROPOUT
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// Builds the integer arithmetic of the hash at `b`'s insertion point.
struct HashBuilder {
  OpBuilder &b;
  Location loc;

  Value c64(uint64_t v) {
    return arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(static_cast<int64_t>(v)));
  }
  Value mix(Value z) {
    z = arith::MulIOp::create(
        b, loc,
        arith::XOrIOp::create(b, loc, z,
                              arith::ShRUIOp::create(b, loc, z, c64(30))),
        c64(dropout::kMul1));
    z = arith::MulIOp::create(
        b, loc,
        arith::XOrIOp::create(b, loc, z,
                              arith::ShRUIOp::create(b, loc, z, c64(27))),
        c64(dropout::kMul2));
    return arith::XOrIOp::create(b, loc, z,
                                 arith::ShRUIOp::create(b, loc, z, c64(31)));
  }
  Value chain(Value h, Value v) {
    Value next = arith::AddIOp::create(b, loc, v, c64(1));
    return mix(arith::XOrIOp::create(
        b, loc, h, arith::MulIOp::create(b, loc, next, c64(dropout::kGolden))));
  }
};

LogicalResult lower(pipe::DropoutOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getInput().getType());
  auto counterType = cast<RankedTensorType>(op.getCounter().getType());
  if (!type.hasStaticShape())
    return op.emitOpError() << "needs a static shape to be lowered";
  int64_t rank = type.getRank();
  int64_t rows = counterType.getDimSize(0);
  int64_t elements = type.getNumElements();
  double ratio = op.getRatio().convertToDouble();
  uint64_t threshold = dropout::threshold(ratio);
  uint64_t stream = static_cast<uint64_t>(op.getStream());
  auto floatType = cast<FloatType>(type.getElementType());

  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps;
  maps.push_back(b.getMultiDimIdentityMap(rank));
  for (int64_t k = 0; k < 3; ++k)
    maps.push_back(AffineMap::get(
        rank, 0, {getAffineConstantExpr(0, ctx), getAffineConstantExpr(k, ctx)},
        ctx));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), floatType);
  Value counter = op.getCounter();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type},
      ValueRange{op.getInput(), counter, counter, counter}, ValueRange{init},
      maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        HashBuilder h{nb, nloc};
        // The element's row-major index in the microbatch, then in the
        // step: microbatch g = first sample / rows.
        Value linear = h.c64(0);
        int64_t stride = 1;
        for (int64_t d = rank - 1; d >= 0; --d) {
          Value index = arith::IndexCastOp::create(
              nb, nloc, nb.getI64Type(), linalg::IndexOp::create(nb, nloc, d));
          linear = arith::AddIOp::create(
              nb, nloc, linear,
              arith::MulIOp::create(nb, nloc, index, h.c64(stride)));
          stride *= type.getDimSize(d);
        }
        Value g = arith::DivUIOp::create(nb, nloc, args[3], h.c64(rows));
        Value element = arith::AddIOp::create(
            nb, nloc, arith::MulIOp::create(nb, nloc, g, h.c64(elements)),
            linear);
        Value key = h.chain(h.chain(h.mix(args[1]), h.c64(stream)), args[2]);
        Value bits = h.chain(key, element);
        Value top =
            arith::ShRUIOp::create(nb, nloc, bits, h.c64(dropout::kShift));
        Value keep = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::uge,
                                           top, h.c64(threshold));
        Value scale = arith::ConstantOp::create(
            nb, nloc, nb.getFloatAttr(floatType, 1.0 / (1.0 - ratio)));
        Value zero = arith::ConstantOp::create(nb, nloc,
                                               nb.getFloatAttr(floatType, 0.0));
        Value scaled = arith::MulFOp::create(nb, nloc, args[0], scale);
        Value result = arith::SelectOp::create(nb, nloc, keep, scaled, zero);
        linalg::YieldOp::create(nb, nloc, result);
      });
  op.replaceAllUsesWith(generic.getResult(0));
  op.erase();
  return success();
}

struct PipeLowerDropoutPass
    : public pipewave::impl::PipeLowerDropoutBase<PipeLowerDropoutPass> {
  void runOnOperation() override {
    SmallVector<pipe::DropoutOp> ops;
    getOperation().walk([&](pipe::DropoutOp op) { ops.push_back(op); });
    for (pipe::DropoutOp op : ops)
      if (failed(lower(op)))
        return signalPassFailure();
  }
};

} // namespace
