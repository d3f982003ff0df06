//===- TosaBuilder.h - TOSA building blocks of stablehlo-to-tosa *- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Small builders the patterns share: TOSA operations with static shapes,
// MLIR 22 operand conventions (`!tosa.shape` operands, zero points, the
// `tosa.mul` shift) and TOSA broadcasting (equal ranks, size-1 dims).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_CONVERSION_STABLEHLOTOTOSA_TOSABUILDER_H
#define PIPEWAVE_LIB_CONVERSION_STABLEHLOTOTOSA_TOSABUILDER_H

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pipewave::shlo {

class TosaBuilder {
public:
  TosaBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  static mlir::RankedTensorType type(mlir::Value v) {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }
  static llvm::ArrayRef<int64_t> shape(mlir::Value v) {
    return type(v).getShape();
  }
  static mlir::Type elem(mlir::Value v) { return type(v).getElementType(); }
  static mlir::RankedTensorType tensor(llvm::ArrayRef<int64_t> shape,
                                       mlir::Type elem) {
    return mlir::RankedTensorType::get(shape, elem);
  }

  mlir::Value constant(mlir::DenseElementsAttr value);
  /// A constant of `shape` filled with `value` (float or integer element).
  mlir::Value splat(double value, mlir::Type elem,
                    llvm::ArrayRef<int64_t> shape);
  mlir::Value constShape(llvm::ArrayRef<int64_t> shape);
  mlir::Value zeroPoint(mlir::Type elem);

  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape);
  /// Reshapes `v` to rank `rank` by leading 1s (no-op if it has the rank).
  mlir::Value toRank(mlir::Value v, int64_t rank);
  mlir::Value transpose(mlir::Value v, llvm::ArrayRef<int64_t> perms);
  mlir::Value tile(mlir::Value v, llvm::ArrayRef<int64_t> multiples);
  mlir::Value cast(mlir::Value v, mlir::Type elem);

  mlir::Value mul(mlir::Value a, mlir::Value c);
  template <typename OpTy>
  mlir::Value binary(mlir::Value a, mlir::Value c, mlir::Type resultElem = {}) {
    int64_t rank = std::max(type(a).getRank(), type(c).getRank());
    a = toRank(a, rank);
    c = toRank(c, rank);
    llvm::SmallVector<int64_t> s;
    for (int64_t i = 0; i < rank; ++i)
      s.push_back(std::max(shape(a)[i], shape(c)[i]));
    return OpTy::create(b, loc, tensor(s, resultElem ? resultElem : elem(a)), a,
                        c);
  }
  template <typename OpTy> mlir::Value unary(mlir::Value v) {
    return OpTy::create(b, loc, v.getType(), v);
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace pipewave::shlo

#endif // PIPEWAVE_LIB_CONVERSION_STABLEHLOTOTOSA_TOSABUILDER_H
