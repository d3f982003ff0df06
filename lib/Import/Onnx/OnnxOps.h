//===- OnnxOps.h - ONNX node importers (internal) ---------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The state shared by the node importers and the `populate*` functions that
// register one importer per ONNX op type, split by op family.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_IMPORT_ONNX_ONNXOPS_H
#define PIPEWAVE_LIB_IMPORT_ONNX_ONNXOPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h> // defines ONNX_API, includes onnx-ml.pb.h

#include <map>
#include <optional>
#include <string>

namespace pipewave::onnximport {

class Importer;
using Node = onnx::NodeProto;
using OpImporter = mlir::LogicalResult (*)(Importer &, const Node &);
using OpTable = llvm::StringMap<OpImporter>;

void populateElementwiseOps(OpTable &table);
void populateMatMulOps(OpTable &table);
void populateReductionOps(OpTable &table);
void populateShapeOps(OpTable &table);
void populateNNOps(OpTable &table);
void populateBatchNormOps(OpTable &table);
void populateRecurrentOps(OpTable &table);
void populateDropoutOps(OpTable &table);

/// Converts an ONNX TensorProto data type to an MLIR element type (null if
/// unsupported).
mlir::Type convertElementType(mlir::MLIRContext *ctx, int onnxType);

class Importer {
public:
  Importer(mlir::MLIRContext *ctx, mlir::OpBuilder &builder)
      : ctx(ctx), b(builder), loc(mlir::UnknownLoc::get(ctx)) {}

  mlir::MLIRContext *ctx;
  mlir::OpBuilder &b;
  mlir::Location loc;    // location of the node being imported
  int64_t opset = 0;     // default-domain opset of the model
  std::string errorText; // first error

  /// Values by ONNX name; compile-time constants (shape arithmetic, small
  /// constants) are kept apart and materialized on use.
  std::map<std::string, mlir::Value> values;
  std::map<std::string, mlir::DenseElementsAttr> constants;

  // --- the step counter of training-mode Dropout (Dropout.cpp) -----------
  /// @main and the global batch (dimension 0 of the first data input; 0:
  /// no data input).
  mlir::func::FuncOp entry;
  int64_t batchRows = 0;
  /// The counter argument, once a Dropout asked for it (appended to the
  /// entry's arguments, named `dropout.counter` and marked pipe.counter).
  mlir::Value counter;
  /// Training-mode Dropouts so far: the next one's stream.
  int64_t dropouts = 0;
  /// The counter argument (tensor<batchRows x 3 x i64>), added on first
  /// use; null and an error when the model has no data input.
  mlir::Value stepCounter();

  // --- errors -------------------------------------------------------------
  mlir::LogicalResult error(const llvm::Twine &message);

  // --- inputs / outputs ---------------------------------------------------
  bool hasInput(const Node &n, int i) const {
    return i < n.input_size() && !n.input(i).empty();
  }
  /// The value of input i (materializes constants); null and an error if
  /// missing.
  mlir::Value input(const Node &n, int i);
  /// The compile-time constant of input i, if it is one.
  std::optional<mlir::DenseElementsAttr> constInput(const Node &n, int i);
  /// Integer constant of input i as int64s.
  std::optional<llvm::SmallVector<int64_t>> constInts(const Node &n, int i);
  void setOutput(const Node &n, int i, mlir::Value v) {
    if (i < n.output_size() && !n.output(i).empty())
      values[n.output(i)] = v;
  }
  void setConstOutput(const Node &n, int i, mlir::DenseElementsAttr c) {
    if (i < n.output_size() && !n.output(i).empty())
      constants[n.output(i)] = c;
  }
  mlir::Value materialize(mlir::DenseElementsAttr c);

  // --- attributes ---------------------------------------------------------
  const onnx::AttributeProto *attr(const Node &n, llvm::StringRef name) const;
  int64_t attrInt(const Node &n, llvm::StringRef name, int64_t dflt) const;
  float attrFloat(const Node &n, llvm::StringRef name, float dflt) const;
  std::string attrString(const Node &n, llvm::StringRef name,
                         llvm::StringRef dflt) const;
  std::optional<llvm::SmallVector<int64_t>>
  attrInts(const Node &n, llvm::StringRef name) const;

  // --- builders -----------------------------------------------------------
  static mlir::RankedTensorType type(mlir::Value v) {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }
  static llvm::ArrayRef<int64_t> shape(mlir::Value v) {
    return type(v).getShape();
  }
  static mlir::Type elem(mlir::Value v) { return type(v).getElementType(); }
  mlir::RankedTensorType tensor(llvm::ArrayRef<int64_t> shape, mlir::Type e) {
    return mlir::RankedTensorType::get(shape, e);
  }
  mlir::Value constShape(llvm::ArrayRef<int64_t> shape);
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value v, llvm::ArrayRef<int32_t> perms);
  /// A constant of `shape` filled with `value` (float or integer element).
  mlir::Value splat(double value, mlir::Type elemType,
                    llvm::ArrayRef<int64_t> shape);
  /// A [1,..,1] constant of rank `rank`.
  mlir::Value scalarLike(double value, mlir::Type elemType, int64_t rank) {
    return splat(value, elemType, llvm::SmallVector<int64_t>(rank, 1));
  }
  mlir::Value shift();
  mlir::Value zeroPoint(mlir::Type elemType);
  mlir::Value cast(mlir::Value v, mlir::Type elemType);
  /// Reshapes the lower-rank operand with leading 1s so both have one rank.
  void alignRanks(mlir::Value &a, mlir::Value &c);
  /// numpy broadcast of two shapes; nullopt if incompatible.
  static std::optional<llvm::SmallVector<int64_t>>
  broadcastShape(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> c);
  /// Builds a binary elementwise TOSA op with broadcasting.
  template <typename OpTy>
  mlir::Value binary(mlir::Value a, mlir::Value c, mlir::Type resultElem = {});
  mlir::Value mul(mlir::Value a, mlir::Value c);
  mlir::Value add(mlir::Value a, mlir::Value c) {
    return binary<mlir::tosa::AddOp>(a, c);
  }
  mlir::Value sub(mlir::Value a, mlir::Value c) {
    return binary<mlir::tosa::SubOp>(a, c);
  }
  // The builders below return a null Value for a null operand: an error was
  // reported where that operand failed, and callers check their result.
  template <typename OpTy> mlir::Value unary(mlir::Value v) {
    if (!v)
      return {};
    return OpTy::create(b, loc, v.getType(), v);
  }
  /// Reduction over one axis, keeping the dim.
  template <typename OpTy> mlir::Value reduce(mlir::Value v, int64_t axis) {
    if (!v)
      return {};
    llvm::SmallVector<int64_t> s(shape(v));
    s[axis] = 1;
    return OpTy::create(b, loc, tensor(s, elem(v)), v,
                        b.getI32IntegerAttr(axis));
  }
  mlir::Value reduceSum(mlir::Value v, llvm::ArrayRef<int64_t> axes);
  mlir::Value reduceMax(mlir::Value v, llvm::ArrayRef<int64_t> axes);
  /// Normalizes a possibly negative axis; error (nullopt) if out of range.
  std::optional<int64_t> axis(int64_t a, int64_t rank);
  /// axis() for ops that index a dimension: also an error on rank 0.
  std::optional<int64_t> dimAxis(int64_t a, int64_t rank) {
    if (rank == 0) {
      (void)error("expected an input of rank >= 1, got a scalar");
      return std::nullopt;
    }
    return axis(a, rank);
  }
};

template <typename OpTy>
mlir::Value Importer::binary(mlir::Value a, mlir::Value c,
                             mlir::Type resultElem) {
  if (!a || !c)
    return {};
  alignRanks(a, c);
  auto s = broadcastShape(shape(a), shape(c));
  if (!s) {
    (void)error("operand shapes do not broadcast");
    return {};
  }
  return OpTy::create(b, loc, tensor(*s, resultElem ? resultElem : elem(a)), a,
                      c);
}

} // namespace pipewave::onnximport

#endif // PIPEWAVE_LIB_IMPORT_ONNX_ONNXOPS_H
