//===- CostModel.h - Per-op cost model for TOSA -----------------*- C++ -*-===//
//
// A static, shape-based cost model: every supported op is assigned a number of
// floating point operations and a number of bytes moved, from which a
// roofline-style execution time is derived. The pipeline partitioner uses it to
// balance stages.
//
// Conventions (see CostModel.cpp for the per-op table):
//  * bytes = sum of the sizes of the ranked tensor operands and results that
//    the op actually touches (numel x ceil(bitwidth / 8)); !tosa.shape operands
//    and scalars count 0 bytes.
//  * Element-wise ops: flops = numel(result) x a per-op factor (1 for simple
//    arithmetic, larger for division and transcendentals).
//  * Views (reshape, expand/collapse_shape, identity, tensor.cast,
//    tensor.empty) and constants cost nothing.
//  * Classes for a calibrated device: constants, shape arithmetic and views
//    are Free; element-wise ops Elementwise; reductions Reduction; matmul
//    Matmul; the data movement ops Movement; everything else Other.
//  * Any tensor with a dynamic dimension (or an unranked tensor) in an op that
//    needs its size makes the op uncostable: getOpCost returns failure.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_ANALYSIS_COSTMODEL_H
#define PIPEWAVE_ANALYSIS_COSTMODEL_H

#include "pipewave/Simulator/Calibration.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace pipewave {

/// Work of one op: floating point operations and bytes moved (read + written),
/// and, for a calibrated device (pipewave/Simulator/Calibration.h), the class
/// of the op and a matmul's per-batch shape.
struct OpCost {
  double flops = 0;
  double bytes = 0;
  sim::OpClass kind = sim::OpClass::Other;
  /// tosa.matmul [B, M, K] x [B, K, N]: M, N and K.
  double m = 0, n = 0, k = 0;
  /// A transcendental op's function (the TOSA op's name, e.g. "erf").
  std::string function;

  /// The work as the device's cost (sim::DeviceSpec::opSeconds) takes it.
  sim::OpWork work() const {
    sim::OpWork work{kind, flops, bytes, m, n, k};
    work.function = function;
    return work;
  }

  OpCost &operator+=(const OpCost &other) {
    flops += other.flops;
    bytes += other.bytes;
    return *this;
  }
};

inline OpCost operator+(OpCost a, const OpCost &b) { return a += b; }

/// Device figures used to turn an OpCost into seconds. The defaults describe a
/// modest multi-core CPU: 50 GFLOP/s of f32 compute and 20 GB/s of memory
/// bandwidth.
struct DeviceModel {
  double flopsPerSecond = 50e9;
  double bytesPerSecond = 20e9;
};

/// Returns the cost of `op`, or failure (with no diagnostic emitted) if
/// pipewave has no cost rule for it or if a shape it needs is dynamic.
mlir::FailureOr<OpCost> getOpCost(mlir::Operation *op);

/// Roofline-style time: max(flops / rate, bytes / bandwidth).
double estimateSeconds(const OpCost &cost, const DeviceModel &device);

/// True for ops that cost nothing and are rematerialised in every stage that
/// uses them (tosa.const, tosa.const_shape, arith.constant).
bool isFreeConstant(mlir::Operation *op);

} // namespace pipewave

#endif // PIPEWAVE_ANALYSIS_COSTMODEL_H
