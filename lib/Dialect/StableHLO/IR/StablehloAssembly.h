//===- StablehloAssembly.h - Custom directives of stablehlo ops -*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The `custom<...>` directives of the stablehlo assembly formats, written to
// read and print what upstream's printer writes:
//
//   SameOperandsAndResultType  `tensor<4xf32>` when every type is equal,
//                              else `(T, T) -> R`
//   SelectOpType               `tensor<4xi1>, tensor<4xf32>` or `(P, T, F) ->
//   R` DimList                    `[0, 1]` SliceRanges                `[0:2,
//   1:4:2]` DotDimensionNumbers        `batching_dims = [0] x [0],
//   contracting_dims =
//                              [2] x [1]`
//   OperandsAndComma           `%a, %b,` (before a keyword)
//   PrecisionConfig            `, precision = [DEFAULT, DEFAULT]` (optional)
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_DIALECT_STABLEHLO_IR_STABLEHLOASSEMBLY_H
#define PIPEWAVE_LIB_DIALECT_STABLEHLO_IR_STABLEHLOASSEMBLY_H

#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

#include "mlir/IR/OpImplementation.h"

namespace pipewave::stablehlo {

mlir::ParseResult parseSameTypes(mlir::OpAsmParser &parser,
                                 llvm::ArrayRef<mlir::Type *> types);
void printSameTypes(mlir::OpAsmPrinter &printer,
                    llvm::ArrayRef<mlir::Type> types);

template <typename... Ts>
mlir::ParseResult parseSameOperandsAndResultType(mlir::OpAsmParser &parser,
                                                 Ts &...types) {
  return parseSameTypes(parser, {&types...});
}
template <typename... Ts>
void printSameOperandsAndResultType(mlir::OpAsmPrinter &printer,
                                    mlir::Operation *, Ts... types) {
  printSameTypes(printer, {mlir::Type(types)...});
}

mlir::ParseResult parseSelectOpType(mlir::OpAsmParser &parser, mlir::Type &pred,
                                    mlir::Type &onTrue, mlir::Type &onFalse,
                                    mlir::Type &result);
void printSelectOpType(mlir::OpAsmPrinter &printer, mlir::Operation *,
                       mlir::Type pred, mlir::Type onTrue, mlir::Type onFalse,
                       mlir::Type result);

mlir::ParseResult parseDimList(mlir::OpAsmParser &parser,
                               mlir::DenseI64ArrayAttr &dims);
void printDimList(mlir::OpAsmPrinter &printer, mlir::Operation *,
                  mlir::DenseI64ArrayAttr dims);

mlir::ParseResult parseSliceRanges(mlir::OpAsmParser &parser,
                                   mlir::DenseI64ArrayAttr &start,
                                   mlir::DenseI64ArrayAttr &limit,
                                   mlir::DenseI64ArrayAttr &strides);
void printSliceRanges(mlir::OpAsmPrinter &printer, mlir::Operation *,
                      mlir::DenseI64ArrayAttr start,
                      mlir::DenseI64ArrayAttr limit,
                      mlir::DenseI64ArrayAttr strides);

mlir::ParseResult parseDotDimensionNumbers(mlir::OpAsmParser &parser,
                                           DotDimensionNumbersAttr &dims);
void printDotDimensionNumbers(mlir::OpAsmPrinter &printer, mlir::Operation *,
                              DotDimensionNumbersAttr dims);

mlir::ParseResult parsePrecisionConfig(mlir::OpAsmParser &parser,
                                       mlir::ArrayAttr &config);
void printPrecisionConfig(mlir::OpAsmPrinter &printer, mlir::Operation *,
                          mlir::ArrayAttr config);

/// `%a, %b,` (each operand followed by a comma; at least one).
mlir::ParseResult parseOperandsAndComma(
    mlir::OpAsmParser &parser,
    llvm::SmallVectorImpl<mlir::OpAsmParser::UnresolvedOperand> &operands);
void printOperandsAndComma(mlir::OpAsmPrinter &printer, mlir::Operation *,
                           mlir::OperandRange operands);

/// `[1, 2, 3]` (an empty list is `[]`).
mlir::ParseResult parseIntList(mlir::AsmParser &parser,
                               llvm::SmallVectorImpl<int64_t> &values);
void printIntList(mlir::AsmPrinter &printer, llvm::ArrayRef<int64_t> values);

} // namespace pipewave::stablehlo

#endif // PIPEWAVE_LIB_DIALECT_STABLEHLO_IR_STABLEHLOASSEMBLY_H
