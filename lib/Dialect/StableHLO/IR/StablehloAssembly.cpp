//===- StablehloAssembly.cpp - Custom directives of stablehlo ops ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "StablehloAssembly.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace pipewave::stablehlo;

ParseResult
pipewave::stablehlo::parseIntList(AsmParser &parser,
                                  SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    return parser.parseInteger(values.emplace_back());
  });
}

void pipewave::stablehlo::printIntList(AsmPrinter &printer,
                                       ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

/// Spreads `(T0, T1, ...) -> R` over `types` (operands, then the result).
static ParseResult assignFunctionType(OpAsmParser &parser, llvm::SMLoc loc,
                                      FunctionType fn, ArrayRef<Type *> types) {
  if (fn.getNumInputs() + 1 != types.size() || fn.getNumResults() != 1)
    return parser.emitError(loc) << "expected " << types.size() - 1
                                 << " operand types and 1 result type";
  for (auto [i, t] : llvm::enumerate(fn.getInputs()))
    *types[i] = t;
  *types.back() = fn.getResult(0);
  return success();
}

ParseResult pipewave::stablehlo::parseSameTypes(OpAsmParser &parser,
                                                ArrayRef<Type *> types) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  Type type;
  if (parser.parseType(type))
    return failure();
  if (auto fn = dyn_cast<FunctionType>(type))
    return assignFunctionType(parser, loc, fn, types);
  for (Type *t : types)
    *t = type;
  return success();
}

void pipewave::stablehlo::printSameTypes(OpAsmPrinter &printer,
                                         ArrayRef<Type> types) {
  if (llvm::all_equal(types)) {
    printer << types.front();
    return;
  }
  printer.printFunctionalType(types.drop_back(), types.take_back());
}

ParseResult pipewave::stablehlo::parseSelectOpType(OpAsmParser &parser,
                                                   Type &pred, Type &onTrue,
                                                   Type &onFalse,
                                                   Type &result) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  Type first;
  if (parser.parseType(first))
    return failure();
  if (auto fn = dyn_cast<FunctionType>(first))
    return assignFunctionType(parser, loc, fn,
                              {&pred, &onTrue, &onFalse, &result});
  Type second;
  if (parser.parseComma() || parser.parseType(second))
    return failure();
  pred = first;
  onTrue = onFalse = result = second;
  return success();
}

void pipewave::stablehlo::printSelectOpType(OpAsmPrinter &printer, Operation *,
                                            Type pred, Type onTrue,
                                            Type onFalse, Type result) {
  if (onTrue == onFalse && onTrue == result) {
    printer << pred << ", " << result;
    return;
  }
  printer.printFunctionalType(ArrayRef<Type>{pred, onTrue, onFalse},
                              ArrayRef<Type>{result});
}

ParseResult pipewave::stablehlo::parseDimList(OpAsmParser &parser,
                                              DenseI64ArrayAttr &dims) {
  SmallVector<int64_t> values;
  if (parseIntList(parser, values))
    return failure();
  dims = parser.getBuilder().getDenseI64ArrayAttr(values);
  return success();
}

void pipewave::stablehlo::printDimList(OpAsmPrinter &printer, Operation *,
                                       DenseI64ArrayAttr dims) {
  printIntList(printer, dims.asArrayRef());
}

ParseResult pipewave::stablehlo::parseSliceRanges(OpAsmParser &parser,
                                                  DenseI64ArrayAttr &start,
                                                  DenseI64ArrayAttr &limit,
                                                  DenseI64ArrayAttr &strides) {
  SmallVector<int64_t> starts, limits, steps;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int64_t step = 1;
        if (parser.parseInteger(starts.emplace_back()) || parser.parseColon() ||
            parser.parseInteger(limits.emplace_back()))
          return failure();
        if (succeeded(parser.parseOptionalColon()) && parser.parseInteger(step))
          return failure();
        steps.push_back(step);
        return success();
      }))
    return failure();
  Builder &b = parser.getBuilder();
  start = b.getDenseI64ArrayAttr(starts);
  limit = b.getDenseI64ArrayAttr(limits);
  strides = b.getDenseI64ArrayAttr(steps);
  return success();
}

void pipewave::stablehlo::printSliceRanges(OpAsmPrinter &printer, Operation *,
                                           DenseI64ArrayAttr start,
                                           DenseI64ArrayAttr limit,
                                           DenseI64ArrayAttr strides) {
  printer << "[";
  for (int64_t i = 0, e = start.size(); i < e; ++i) {
    if (i)
      printer << ", ";
    printer << start[i] << ':' << limit[i];
    if (i < strides.size() && strides[i] != 1)
      printer << ':' << strides[i];
  }
  printer << ']';
}

/// `NAME = [a] x [b]`.
static ParseResult parseDimPair(OpAsmParser &parser, StringRef name,
                                SmallVectorImpl<int64_t> &lhs,
                                SmallVectorImpl<int64_t> &rhs) {
  return failure(parser.parseKeyword(name) || parser.parseEqual() ||
                 parseIntList(parser, lhs) || parser.parseKeyword("x") ||
                 parseIntList(parser, rhs));
}

ParseResult
pipewave::stablehlo::parseDotDimensionNumbers(OpAsmParser &parser,
                                              DotDimensionNumbersAttr &dims) {
  SmallVector<int64_t> lb, rb, lc, rc;
  if (succeeded(parser.parseOptionalKeyword("batching_dims"))) {
    if (parser.parseEqual() || parseIntList(parser, lb) ||
        parser.parseKeyword("x") || parseIntList(parser, rb) ||
        parser.parseComma())
      return failure();
  }
  if (parseDimPair(parser, "contracting_dims", lc, rc))
    return failure();
  dims = DotDimensionNumbersAttr::get(parser.getContext(), lb, rb, lc, rc);
  return success();
}

void pipewave::stablehlo::printDotDimensionNumbers(
    OpAsmPrinter &printer, Operation *, DotDimensionNumbersAttr dims) {
  if (!dims.getLhsBatchingDimensions().empty() ||
      !dims.getRhsBatchingDimensions().empty()) {
    printer << "batching_dims = ";
    printIntList(printer, dims.getLhsBatchingDimensions());
    printer << " x ";
    printIntList(printer, dims.getRhsBatchingDimensions());
    printer << ", ";
  }
  printer << "contracting_dims = ";
  printIntList(printer, dims.getLhsContractingDimensions());
  printer << " x ";
  printIntList(printer, dims.getRhsContractingDimensions());
}

ParseResult pipewave::stablehlo::parsePrecisionConfig(OpAsmParser &parser,
                                                      ArrayAttr &config) {
  if (failed(parser.parseOptionalComma()))
    return success();
  SmallVector<Attribute> values;
  if (parser.parseKeyword("precision") || parser.parseEqual() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            llvm::SMLoc loc = parser.getCurrentLocation();
            StringRef word;
            if (parser.parseKeyword(&word))
              return failure();
            std::optional<Precision> p = symbolizePrecision(word);
            if (!p)
              return parser.emitError(loc)
                     << "unknown precision '" << word << "'";
            values.push_back(PrecisionAttr::get(parser.getContext(), *p));
            return success();
          }))
    return failure();
  config = parser.getBuilder().getArrayAttr(values);
  return success();
}

void pipewave::stablehlo::printPrecisionConfig(OpAsmPrinter &printer,
                                               Operation *, ArrayAttr config) {
  if (!config)
    return;
  printer << ", precision = [";
  llvm::interleaveComma(config, printer, [&](Attribute a) {
    printer << stringifyPrecision(cast<PrecisionAttr>(a).getValue());
  });
  printer << ']';
}

ParseResult pipewave::stablehlo::parseOperandsAndComma(
    OpAsmParser &parser,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands) {
  while (true) {
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult r = parser.parseOptionalOperand(operand);
    if (!r.has_value())
      break;
    if (failed(*r) || parser.parseComma())
      return failure();
    operands.push_back(operand);
  }
  if (operands.empty())
    return parser.emitError(parser.getCurrentLocation(),
                            "expected at least one operand");
  return success();
}

void pipewave::stablehlo::printOperandsAndComma(OpAsmPrinter &printer,
                                                Operation *,
                                                OperandRange operands) {
  llvm::interleave(
      operands, printer, [&](Value v) { printer << v << ','; }, " ");
}
