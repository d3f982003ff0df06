//===- CostModel.cpp - Per-op cost model for TOSA -------------------------===//
//
// Cost rules, grouped by kind. n(T) is the static element count of tensor T,
// bytes(T) = n(T) x ceil(bitwidth / 8) (i1 and i4 count as one byte, index as
// eight), and "touched" is the sum of bytes() over the tensor operands and
// results of the op.
//
//  free (0 flops, 0 bytes), rematerialised in every stage:
//    tosa.const, tosa.const_shape, arith.constant
//  compile-time shape arithmetic (0, 0):
//    tosa.add_shape, sub_shape, mul_shape, div_ceil_shape, div_floor_shape,
//    mod_shape, max_shape, min_shape, exp2_shape, log2_ceil_shape,
//    log2_floor_shape, concat_shape, slice_shape, dim
//  views / no-ops (0, 0): they lower to expand/collapse_shape or vanish, and
//  bufferize to aliases rather than copies:
//    tosa.reshape, tosa.identity, tensor.expand_shape, tensor.collapse_shape,
//    tensor.cast, tensor.empty, and return-like terminators (func.return, ...)
//  element-wise: flops = n(result) x factor, bytes = touched
//    factor 1:  tosa.add, sub, mul, maximum, minimum, abs, negate, ceil, floor,
//               cast, select, equal, greater, greater_equal, logical_and,
//               logical_or, logical_xor, logical_not, logical_left_shift,
//               logical_right_shift, arithmetic_right_shift, bitwise_and,
//               bitwise_or, bitwise_xor, bitwise_not, clz, table;
//               arith.addf, subf, mulf, negf, maximumf, minimumf, addi, subi,
//               muli, andi, ori, xori, cmpf, cmpi, select, extf, truncf, extsi,
//               extui, trunci, sitofp, uitofp, fptosi, fptoui
//    factor 2:  tosa.clamp (a min and a max)
//    factor 4:  tosa.intdiv, reciprocal, rsqrt, rescale; arith.divf, divsi,
//               divui, remf  (division-class latency, ~4 adds)
//    factor 8:  tosa.exp, log, sin, cos  (polynomial + range reduction)
//    factor 10: tosa.tanh, sigmoid, erf  (exp-based or rational approximations)
//    factor 16: tosa.pow  (exp(y * log(x)))
//    (factor 8 and above are the Transcendental class for a calibrated
//    device: library calls per element in the CPU code)
//  reductions: flops = n(input) (one combine or compare per input element),
//    bytes = touched:
//    tosa.reduce_sum, reduce_max, reduce_min, reduce_product, reduce_all,
//    reduce_any, argmax
//    (class Reduction along the innermost non-unit axis, OuterReduction
//    along an outer one)
//  compute-bound ops, bytes = touched:
//    tosa.matmul          [B,M,K] x [B,K,N]: 2.B.M.N.K
//    tosa.conv2d          weight [OC,KH,KW,IC]: 2.n(out).KH.KW.IC + n(out)
//    tosa.conv3d          weight [OC,KD,KH,KW,IC]: 2.n(out).KD.KH.KW.IC +
//    n(out) tosa.depthwise_conv2d weight [KH,KW,C,M]: 2.n(out).KH.KW + n(out)
//    tosa.transpose_conv2d input [N,IH,IW,IC], weight [OC,KH,KW,IC]:
//                         2.N.IH.IW.IC.OC.KH.KW + n(out)
//    tosa.avg_pool2d      n(out).(KH.KW + 1)
//    tosa.max_pool2d      n(out).KH.KW
//    tosa.fft2d           inputs [N,H,W]: 5.N.H.W.log2(H.W)
//    tosa.rfft2d          inputs [N,H,W]: 2.5.N.H.W.log2(H.W)
//    tosa.resize          8.n(out) for bilinear, 0 for nearest neighbour
//  data movement, 0 flops:
//    bytes = touched: tosa.transpose, concat, pad, tile, reverse, scatter;
//                     tensor.concat, tensor.pad
//    (a transpose that moves the input's innermost axis is class Transpose,
//    m = n(input) / its innermost dimension, n = that dimension)
//    bytes = 2.bytes(result) (only the selected part is read):
//                     tosa.slice, tensor.extract_slice
//    bytes = bytes(indices) + 2.bytes(result): tosa.gather
//    bytes = 2.bytes(source): tensor.insert_slice (copy into the destination)
//
// Every other op (including tosa.custom, control flow, variables and the
// block-scaled ops) has no rule. An op with an unranked or dynamically shaped
// tensor operand or result has no cost either. Both give failure.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Analysis/CostModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;

namespace pipewave {
namespace {

/// Bytes of one element of `type`, or nullopt for element types we do not
/// know how to size.
std::optional<double> elementBytes(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<double> part = elementBytes(complex.getElementType());
    if (!part)
      return std::nullopt;
    return 2 * *part;
  }
  if (type.isIndex())
    return 8.0;
  if (type.isIntOrFloat())
    return static_cast<double>((type.getIntOrFloatBitWidth() + 7) / 8);
  return std::nullopt;
}

/// True if `type` is a tensor whose size the model cannot know (unranked or
/// with a dynamic dimension, or an unsized element type).
bool isUnsizedTensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return false;
  return !tensor.hasStaticShape() ||
         !elementBytes(tensor.getElementType()).has_value();
}

/// Static element count of a value: the number of elements for a ranked,
/// static tensor, 1 for a scalar.
double numElements(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    return static_cast<double>(tensor.getNumElements());
  return 1.0;
}

/// Bytes of a value in memory: its size for tensors, 0 for scalars (they live
/// in registers) and for !tosa.shape values (compile-time only).
double valueBytes(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor)
    return 0.0;
  return static_cast<double>(tensor.getNumElements()) *
         *elementBytes(tensor.getElementType());
}

double sumBytes(ValueRange values) {
  double total = 0;
  for (Value value : values)
    total += valueBytes(value);
  return total;
}

/// Read + written bytes when the op touches all its operands and results.
double touchedBytes(Operation *op) {
  return sumBytes(op->getOperands()) + sumBytes(op->getResults());
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

double product(ArrayRef<int64_t> dims) {
  double result = 1;
  for (int64_t dim : dims)
    result *= static_cast<double>(dim);
  return result;
}

/// Per-result-element flop factor of an element-wise op, or nullopt if `op` is
/// not one of the element-wise ops the model knows.
std::optional<double> elementwiseFactor(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<double>>(op)
      .Case<tosa::AddOp, tosa::SubOp, tosa::MulOp, tosa::MaximumOp,
            tosa::MinimumOp, tosa::AbsOp, tosa::NegateOp, tosa::CeilOp,
            tosa::FloorOp, tosa::CastOp, tosa::SelectOp, tosa::EqualOp,
            tosa::GreaterOp, tosa::GreaterEqualOp, tosa::LogicalAndOp,
            tosa::LogicalOrOp, tosa::LogicalXorOp, tosa::LogicalNotOp,
            tosa::LogicalLeftShiftOp, tosa::LogicalRightShiftOp,
            tosa::ArithmeticRightShiftOp, tosa::BitwiseAndOp, tosa::BitwiseOrOp,
            tosa::BitwiseXorOp, tosa::BitwiseNotOp, tosa::ClzOp, tosa::TableOp>(
          [](auto) { return 1.0; })
      .Case<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp,
            arith::MaximumFOp, arith::MinimumFOp, arith::AddIOp, arith::SubIOp,
            arith::MulIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
            arith::CmpFOp, arith::CmpIOp, arith::SelectOp, arith::ExtFOp,
            arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
            arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp>(
          [](auto) { return 1.0; })
      .Case<tosa::ClampOp>([](auto) { return 2.0; })
      .Case<tosa::IntDivOp, tosa::ReciprocalOp, tosa::RsqrtOp, tosa::RescaleOp,
            arith::DivFOp, arith::DivSIOp, arith::DivUIOp, arith::RemFOp>(
          [](auto) { return 4.0; })
      .Case<tosa::ExpOp, tosa::LogOp, tosa::SinOp, tosa::CosOp>(
          [](auto) { return 8.0; })
      .Case<tosa::TanhOp, tosa::SigmoidOp, tosa::ErfOp>(
          [](auto) { return 10.0; })
      .Case<tosa::PowOp>([](auto) { return 16.0; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Reduction along the innermost non-unit axis of the input, or
/// OuterReduction (rows added element-wise).
sim::OpClass reductionClass(Operation *op) {
  auto axis = op->getAttrOfType<IntegerAttr>("axis");
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  if (!axis)
    return sim::OpClass::Reduction;
  int64_t a = axis.getInt();
  if (a < 0 || a >= static_cast<int64_t>(in.size()))
    return sim::OpClass::Reduction;
  return product(in.drop_front(a + 1)) > 1 ? sim::OpClass::OuterReduction
                                           : sim::OpClass::Reduction;
}

/// Cost of the ops that are not plain element-wise maps.
FailureOr<OpCost> structuredCost(Operation *op) {
  using Result = FailureOr<OpCost>;
  auto zero = [](auto) -> Result {
    OpCost cost;
    cost.kind = sim::OpClass::Free;
    return cost;
  };
  auto moveAll = [](Operation *op) -> Result {
    return OpCost{0, touchedBytes(op), sim::OpClass::Movement};
  };
  return llvm::TypeSwitch<Operation *, Result>(op)
      // Constants and compile-time shape computations.
      .Case<tosa::ConstOp, tosa::ConstShapeOp, arith::ConstantOp>(zero)
      .Case<tosa::AddShapeOp, tosa::SubShapeOp, tosa::MulShapeOp,
            tosa::DivCeilShapeOp, tosa::DivFloorShapeOp, tosa::ModShapeOp,
            tosa::MaxShapeOp, tosa::MinShapeOp, tosa::Exp2ShapeOp,
            tosa::Log2CeilShapeOp, tosa::Log2FloorShapeOp, tosa::ConcatShapeOp,
            tosa::SliceShapeOp, tosa::DimOp>(zero)
      // Views and no-ops.
      .Case<tosa::ReshapeOp, tosa::IdentityOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp, tensor::CastOp, tensor::EmptyOp>(zero)
      // Reductions: one combine per input element.
      .Case<tosa::ReduceSumOp, tosa::ReduceMaxOp, tosa::ReduceMinOp,
            tosa::ReduceProductOp, tosa::ReduceAllOp, tosa::ReduceAnyOp,
            tosa::ArgMaxOp>([](Operation *op) -> Result {
        return OpCost{numElements(op->getOperand(0)), touchedBytes(op),
                      reductionClass(op)};
      })
      .Case<tosa::MatMulOp>([](tosa::MatMulOp mm) -> Result {
        ArrayRef<int64_t> a = shapeOf(mm.getA());        // [B, M, K]
        ArrayRef<int64_t> out = shapeOf(mm.getOutput()); // [B, M, N]
        return OpCost{2 * product(out) * static_cast<double>(a[2]),
                      touchedBytes(mm),
                      sim::OpClass::Matmul,
                      static_cast<double>(a[1]),
                      static_cast<double>(out[2]),
                      static_cast<double>(a[2])};
      })
      .Case<tosa::Conv2DOp>([](tosa::Conv2DOp conv) -> Result {
        ArrayRef<int64_t> w = shapeOf(conv.getWeight()); // [OC, KH, KW, IC]
        double out = numElements(conv.getOutput());
        return OpCost{2 * out * product(w.drop_front()) + out,
                      touchedBytes(conv)};
      })
      .Case<tosa::Conv3DOp>([](tosa::Conv3DOp conv) -> Result {
        ArrayRef<int64_t> w = shapeOf(conv.getWeight()); // [OC, KD, KH, KW, IC]
        double out = numElements(conv.getOutput());
        return OpCost{2 * out * product(w.drop_front()) + out,
                      touchedBytes(conv)};
      })
      .Case<tosa::DepthwiseConv2DOp>(
          [](tosa::DepthwiseConv2DOp conv) -> Result {
            ArrayRef<int64_t> w = shapeOf(conv.getWeight()); // [KH, KW, C, M]
            double out = numElements(conv.getOutput());
            return OpCost{2 * out * product(w.take_front(2)) + out,
                          touchedBytes(conv)};
          })
      .Case<tosa::TransposeConv2DOp>(
          [](tosa::TransposeConv2DOp conv) -> Result {
            double in = numElements(conv.getInput());        // N.IH.IW.IC
            ArrayRef<int64_t> w = shapeOf(conv.getWeight()); // [OC, KH, KW, IC]
            double out = numElements(conv.getOutput());
            return OpCost{2 * in * product(w.take_front(3)) + out,
                          touchedBytes(conv)};
          })
      .Case<tosa::AvgPool2dOp>([](tosa::AvgPool2dOp pool) -> Result {
        double out = numElements(pool.getOutput());
        return OpCost{out * (product(pool.getKernel()) + 1),
                      touchedBytes(pool)};
      })
      .Case<tosa::MaxPool2dOp>([](tosa::MaxPool2dOp pool) -> Result {
        double out = numElements(pool.getOutput());
        return OpCost{out * product(pool.getKernel()), touchedBytes(pool)};
      })
      .Case<tosa::FFT2dOp, tosa::RFFT2dOp>([](auto fft) -> Result {
        // Inputs are [N, H, W]; 5 n log2 n for an n-point complex FFT, half
        // of that for a real-input one.
        ArrayRef<int64_t> in = shapeOf(fft->getOperand(0));
        double points = static_cast<double>(in[1]) * static_cast<double>(in[2]);
        double flops = 5 * static_cast<double>(in[0]) * points *
                       std::log2(std::max(points, 1.0));
        if (isa<tosa::RFFT2dOp>(fft.getOperation()))
          flops /= 2;
        return OpCost{flops, touchedBytes(fft)};
      })
      .Case<tosa::ResizeOp>([](tosa::ResizeOp resize) -> Result {
        double perElement =
            resize.getMode() == tosa::ResizeMode::BILINEAR ? 8.0 : 0.0;
        return OpCost{perElement * numElements(resize.getOutput()),
                      touchedBytes(resize)};
      })
      // Data movement.
      .Case<tosa::TransposeOp>([](tosa::TransposeOp transpose) -> Result {
        ArrayRef<int64_t> in = shapeOf(transpose.getInput1());
        ArrayRef<int32_t> perms = transpose.getPerms();
        OpCost cost{0, touchedBytes(transpose), sim::OpClass::Movement};
        if (!in.empty() && !perms.empty() &&
            perms.back() != static_cast<int32_t>(in.size() - 1)) {
          cost.kind = sim::OpClass::Transpose;
          cost.n = static_cast<double>(std::max<int64_t>(in.back(), 1));
          cost.m = product(in) / cost.n;
        }
        return cost;
      })
      .Case<tosa::ConcatOp, tosa::PadOp, tosa::TileOp, tosa::ReverseOp,
            tosa::ScatterOp, tensor::ConcatOp, tensor::PadOp>(
          [&](auto movement) { return moveAll(movement.getOperation()); })
      .Case<tosa::SliceOp, tensor::ExtractSliceOp>([](auto slice) -> Result {
        return OpCost{0, 2 * sumBytes(slice->getResults()),
                      sim::OpClass::Movement};
      })
      .Case<tosa::GatherOp>([](tosa::GatherOp gather) -> Result {
        return OpCost{0,
                      valueBytes(gather.getIndices()) +
                          2 * valueBytes(gather.getOutput()),
                      sim::OpClass::Movement};
      })
      .Case<tensor::InsertSliceOp>([](tensor::InsertSliceOp insert) -> Result {
        return OpCost{0, 2 * valueBytes(insert.getSource()),
                      sim::OpClass::Movement};
      })
      .Default([](Operation *op) -> Result {
        // The pipe dialect's batch statistics (a reduction), running state
        // update (two multiplies and an add per element) and dropout, by name:
        // this library does not depend on the dialect.
        StringRef name = op->getName().getStringRef();
        if (name == "pipe.batch_mean")
          return OpCost{numElements(op->getOperand(0)), touchedBytes(op)};
        if (name == "pipe.update_state")
          return OpCost{3 * numElements(op->getOperand(0)), touchedBytes(op)};
        // About 40 integer operations of the counter hash per element.
        if (name == "pipe.dropout")
          return OpCost{40 * numElements(op->getOperand(0)), touchedBytes(op)};
        return failure();
      });
}

} // namespace

FailureOr<OpCost> getOpCost(Operation *op) {
  // Terminators that only forward values (func.return, tosa.yield, ...).
  if (op->hasTrait<OpTrait::ReturnLike>())
    return OpCost{0, 0, sim::OpClass::Free};

  for (Type type : op->getOperandTypes())
    if (isUnsizedTensor(type))
      return failure();
  for (Type type : op->getResultTypes())
    if (isUnsizedTensor(type))
      return failure();

  if (std::optional<double> factor = elementwiseFactor(op)) {
    double elements = 0;
    for (Value result : op->getResults())
      elements += numElements(result);
    OpCost cost{*factor * elements, touchedBytes(op),
                *factor >= 8 ? sim::OpClass::Transcendental
                             : sim::OpClass::Elementwise};
    if (cost.kind == sim::OpClass::Transcendental)
      cost.function = op->getName().stripDialect().str();
    return cost;
  }
  return structuredCost(op);
}

double estimateSeconds(const OpCost &cost, const DeviceModel &device) {
  // A non-positive figure disables its term rather than dividing by zero.
  double compute =
      device.flopsPerSecond > 0 ? cost.flops / device.flopsPerSecond : 0.0;
  double memory =
      device.bytesPerSecond > 0 ? cost.bytes / device.bytesPerSecond : 0.0;
  return std::max(compute, memory);
}

bool isFreeConstant(Operation *op) {
  return isa<tosa::ConstOp, tosa::ConstShapeOp, arith::ConstantOp>(op);
}

} // namespace pipewave
