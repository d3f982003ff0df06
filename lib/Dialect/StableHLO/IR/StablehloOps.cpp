//===- StablehloOps.cpp - stablehlo operations: formats and verifiers -----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Verifiers check what the conversion relies on locally (permutations,
// dimension lists in range, the i1 predicate); the custom formats of
// `constant` and `reduce` follow upstream's printer.
//
//===----------------------------------------------------------------------===//

#include "StablehloAssembly.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace pipewave::stablehlo;

#define GET_OP_CLASSES
#include "pipewave/Dialect/StableHLO/IR/StablehloOps.cpp.inc"

namespace {
/// The rank of `t`, or -1 when it is unranked.
int64_t rankOf(Type t) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  return ranked ? ranked.getRank() : -1;
}

/// Checks that every entry of `dims` is in [0, rank) and none repeats.
LogicalResult checkDims(Operation *op, StringRef what, ArrayRef<int64_t> dims,
                        int64_t rank) {
  if (rank < 0)
    return success();
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return op->emitOpError()
             << what << " " << d << " is out of range [0, " << rank << ")";
    if (!seen.insert(d).second)
      return op->emitOpError() << what << " " << d << " repeats";
  }
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  llvm::SMLoc loc = parser.getCurrentLocation();
  Attribute value;
  if (parser.parseAttribute(value))
    return failure();
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements)
    return parser.emitError(loc) << "expected a dense elements attribute";
  result.getOrAddProperties<Properties>().value = elements;
  result.addTypes(elements.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  printer << ' ' << getValue();
}

/// `%cst` for floating-point constants, `%c` for the others, as upstream.
void ConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(),
            isa<FloatType>(getType().getElementType()) ? "cst" : "c");
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError() << "value type " << getValue().getType()
                         << " differs from the result type " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::verify() {
  auto pred = cast<TensorType>(getPred().getType());
  if (!pred.getElementType().isInteger(1))
    return emitOpError() << "predicate must be a tensor of i1, got " << pred;
  if (pred.hasRank() && pred.getRank() != 0 &&
      pred.getShape() != cast<TensorType>(getOnTrue().getType()).getShape())
    return emitOpError() << "predicate must be a scalar or shaped like the "
                            "operands";
  return success();
}

LogicalResult IotaOp::verify() {
  int64_t rank = rankOf(getType());
  if (rank >= 0 && getIotaDimension() >= (uint64_t)rank)
    return emitOpError() << "iota dimension " << getIotaDimension()
                         << " is out of range for rank " << rank;
  return success();
}

LogicalResult BroadcastInDimOp::verify() {
  int64_t in = rankOf(getOperand().getType());
  if (in >= 0 && (int64_t)getBroadcastDimensions().size() != in)
    return emitOpError() << "expected " << in << " broadcast dimensions, got "
                         << getBroadcastDimensions().size();
  return checkDims(*this, "broadcast dimension", getBroadcastDimensions(),
                   rankOf(getType()));
}

LogicalResult TransposeOp::verify() {
  int64_t rank = rankOf(getOperand().getType());
  if (rank >= 0 && (int64_t)getPermutation().size() != rank)
    return emitOpError() << "permutation has " << getPermutation().size()
                         << " entries for rank " << rank;
  return checkDims(*this, "permutation entry", getPermutation(), rank);
}

LogicalResult SliceOp::verify() {
  int64_t rank = rankOf(getOperand().getType());
  size_t n = getStartIndices().size();
  if (getLimitIndices().size() != n || getStrides().size() != n ||
      (rank >= 0 && (int64_t)n != rank))
    return emitOpError() << "expected start, limit and stride for each of "
                         << rank << " dimensions";
  for (int64_t s : getStrides())
    if (s <= 0)
      return emitOpError() << "strides must be positive";
  return success();
}

LogicalResult DotGeneralOp::verify() {
  DotDimensionNumbersAttr d = getDotDimensionNumbers();
  if (d.getLhsBatchingDimensions().size() !=
          d.getRhsBatchingDimensions().size() ||
      d.getLhsContractingDimensions().size() !=
          d.getRhsContractingDimensions().size())
    return emitOpError() << "lhs and rhs must batch and contract as many "
                            "dimensions each";
  int64_t lr = rankOf(getLhs().getType()), rr = rankOf(getRhs().getType());
  SmallVector<int64_t> l(d.getLhsBatchingDimensions()),
      r(d.getRhsBatchingDimensions());
  llvm::append_range(l, d.getLhsContractingDimensions());
  llvm::append_range(r, d.getRhsContractingDimensions());
  if (failed(checkDims(*this, "lhs dimension", l, lr)) ||
      failed(checkDims(*this, "rhs dimension", r, rr)))
    return failure();
  return success();
}

LogicalResult ReduceOp::verify() {
  size_t n = getInputs().size();
  if (n == 0 || getInitValues().size() != n || getNumResults() != n)
    return emitOpError() << "expected as many inputs, init values and "
                            "results (at least one)";
  if (getBody().front().getNumArguments() != 2 * n)
    return emitOpError() << "the reducer takes " << 2 * n << " arguments";
  if (!isa<ReturnOp>(getBody().front().getTerminator()))
    return emitOpError() << "the reducer must end in stablehlo.return";
  return checkDims(*this, "reduced dimension", getDimensions(),
                   rankOf(getInputs()[0].getType()));
}

//===----------------------------------------------------------------------===//
// reduce: `stablehlo.reduce(%x init: %z) applies stablehlo.add across
// dimensions = [0] : (T, S) -> R`, or `... across dimensions = [0] : ...
// reducer(%a: S, %b: S) { ... }` (with one argument pair per input).
//===----------------------------------------------------------------------===//

ParseResult ReduceOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, inits;
  do {
    if (parser.parseLParen() || parser.parseOperand(inputs.emplace_back()) ||
        parser.parseKeyword("init") || parser.parseColon() ||
        parser.parseOperand(inits.emplace_back()) || parser.parseRParen())
      return failure();
  } while (succeeded(parser.parseOptionalComma()));

  std::string applies;
  llvm::SMLoc appliesLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword("applies"))) {
    appliesLoc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&applies))
      return failure();
  }
  SmallVector<int64_t> dims;
  if (parser.parseKeyword("across") || parser.parseKeyword("dimensions") ||
      parser.parseEqual() || parseIntList(parser, dims) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.getOrAddProperties<Properties>().dimensions =
      parser.getBuilder().getDenseI64ArrayAttr(dims);

  llvm::SMLoc typeLoc = parser.getCurrentLocation();
  FunctionType fn;
  if (parser.parseColonType(fn))
    return failure();
  size_t n = inputs.size();
  if (fn.getNumInputs() != 2 * n || fn.getNumResults() != n)
    return parser.emitError(typeLoc)
           << "expected " << 2 * n << " operand types and " << n
           << " result types";
  if (parser.resolveOperands(inputs, fn.getInputs().take_front(n), typeLoc,
                             result.operands) ||
      parser.resolveOperands(inits, fn.getInputs().drop_front(n), typeLoc,
                             result.operands))
    return failure();
  result.addTypes(fn.getResults());
  Region *body = result.addRegion();

  if (!applies.empty()) {
    // The compact form: one binary operation of the two block arguments.
    if (n != 1)
      return parser.emitError(appliesLoc)
             << "'applies' needs exactly one input";
    Type scalar = fn.getInput(1);
    Block *block = new Block();
    body->push_back(block);
    Location loc = parser.getEncodedSourceLoc(appliesLoc);
    Value a = block->addArgument(scalar, loc),
          b = block->addArgument(scalar, loc);
    OpBuilder builder(parser.getContext());
    builder.setInsertionPointToEnd(block);
    OperationState inner(loc, applies);
    if (!inner.name.isRegistered())
      return parser.emitError(appliesLoc)
             << "unsupported operation '" << applies << "' in a reducer";
    inner.addOperands({a, b});
    inner.addTypes(scalar);
    Operation *op = builder.create(inner);
    ReturnOp::create(builder, loc, op->getResults());
    return success();
  }

  // reducer(%a: S, %b: S) (%c: T, %d: T) { ... }: pair i holds block
  // arguments i and n + i.
  SmallVector<OpAsmParser::Argument> args(2 * n);
  if (parser.parseKeyword("reducer"))
    return failure();
  for (size_t i = 0; i < n; ++i)
    if (parser.parseLParen() ||
        parser.parseArgument(args[i], /*allowType=*/true) ||
        parser.parseComma() ||
        parser.parseArgument(args[n + i], /*allowType=*/true) ||
        parser.parseRParen())
      return failure();
  return parser.parseRegion(*body, args);
}

/// The binary operation of a reducer body that is only `op(%a, %b)`
/// returned, else null.
static Operation *compactReducer(ReduceOp op) {
  Block &block = op.getBody().front();
  if (op.getInputs().size() != 1 || block.getOperations().size() != 2)
    return nullptr;
  Operation &inner = block.front();
  auto ret = dyn_cast<ReturnOp>(block.back());
  if (!ret || inner.getNumOperands() != 2 || inner.getNumResults() != 1 ||
      inner.getNumRegions() != 0 || !inner.getAttrs().empty() ||
      inner.getDialect() != op->getDialect() ||
      inner.getOperand(0) != block.getArgument(0) ||
      inner.getOperand(1) != block.getArgument(1) ||
      ret->getOperands() != inner.getResults() ||
      inner.getResult(0).getType() != block.getArgument(0).getType())
    return nullptr;
  return &inner;
}

void ReduceOp::print(OpAsmPrinter &printer) {
  size_t n = getInputs().size();
  for (size_t i = 0; i < n; ++i) {
    printer << (i ? ", (" : "(") << getInputs()[i]
            << " init: " << getInitValues()[i] << ')';
  }
  Operation *compact = compactReducer(*this);
  if (compact)
    printer << " applies " << compact->getName().getStringRef();
  printer << " across dimensions = ";
  printIntList(printer, getDimensions());
  printer.printOptionalAttrDict((*this)->getAttrs(), {"dimensions"});
  printer << " : ";
  printer.printFunctionalType(*this);
  if (compact)
    return;
  Block &block = getBody().front();
  printer.printNewline();
  printer << " reducer";
  for (size_t i = 0; i < n; ++i) {
    printer << '(';
    printer.printRegionArgument(block.getArgument(i));
    printer << ", ";
    printer.printRegionArgument(block.getArgument(n + i));
    printer << ") ";
  }
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}
