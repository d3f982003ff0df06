//===- StablehloAttrs.cpp - #stablehlo.dot and #stablehlo.gather ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Both attributes are `<key = value, ...>` lists whose keys may come in any
// order and whose empty lists are left out, as upstream prints them.
//
//===----------------------------------------------------------------------===//

#include "StablehloAssembly.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pipewave::stablehlo;

namespace {

/// Parses `<key = [..] | int, ...>` into `lists` / `ints`; a key outside both
/// maps is an error.
ParseResult parseFields(AsmParser &parser,
                        llvm::StringMap<SmallVector<int64_t> *> lists,
                        llvm::StringMap<int64_t *> ints) {
  if (parser.parseLess())
    return failure();
  if (succeeded(parser.parseOptionalGreater()))
    return success();
  if (parser.parseCommaSeparatedList([&]() -> ParseResult {
        llvm::SMLoc loc = parser.getCurrentLocation();
        StringRef key;
        if (parser.parseKeyword(&key) || parser.parseEqual())
          return failure();
        if (auto it = lists.find(key); it != lists.end())
          return parseIntList(parser, *it->second);
        if (auto it = ints.find(key); it != ints.end())
          return parser.parseInteger(*it->second);
        return parser.emitError(loc) << "unknown field '" << key << "'";
      }))
    return failure();
  return parser.parseGreater();
}

/// Prints `key = [..]` unless the list is empty.
void printList(AsmPrinter &printer, bool &first, StringRef key,
               ArrayRef<int64_t> values) {
  if (values.empty())
    return;
  printer << (first ? "" : ", ") << key << " = ";
  printIntList(printer, values);
  first = false;
}

} // namespace

Attribute DotDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> lb, rb, lc, rc;
  if (parseFields(parser,
                  {{"lhs_batching_dimensions", &lb},
                   {"rhs_batching_dimensions", &rb},
                   {"lhs_contracting_dimensions", &lc},
                   {"rhs_contracting_dimensions", &rc}},
                  {}))
    return {};
  return DotDimensionNumbersAttr::get(parser.getContext(), lb, rb, lc, rc);
}

void DotDimensionNumbersAttr::print(AsmPrinter &printer) const {
  bool first = true;
  printer << '<';
  printList(printer, first, "lhs_batching_dimensions",
            getLhsBatchingDimensions());
  printList(printer, first, "rhs_batching_dimensions",
            getRhsBatchingDimensions());
  printList(printer, first, "lhs_contracting_dimensions",
            getLhsContractingDimensions());
  printList(printer, first, "rhs_contracting_dimensions",
            getRhsContractingDimensions());
  printer << '>';
}

Attribute GatherDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> offset, collapsed, operandBatch, indicesBatch, map;
  int64_t indexVectorDim = 0;
  if (parseFields(parser,
                  {{"offset_dims", &offset},
                   {"collapsed_slice_dims", &collapsed},
                   {"operand_batching_dims", &operandBatch},
                   {"start_indices_batching_dims", &indicesBatch},
                   {"start_index_map", &map}},
                  {{"index_vector_dim", &indexVectorDim}}))
    return {};
  return GatherDimensionNumbersAttr::get(parser.getContext(), offset, collapsed,
                                         operandBatch, indicesBatch, map,
                                         indexVectorDim);
}

void GatherDimensionNumbersAttr::print(AsmPrinter &printer) const {
  bool first = true;
  printer << '<';
  printList(printer, first, "offset_dims", getOffsetDims());
  printList(printer, first, "collapsed_slice_dims", getCollapsedSliceDims());
  printList(printer, first, "operand_batching_dims", getOperandBatchingDims());
  printList(printer, first, "start_indices_batching_dims",
            getStartIndicesBatchingDims());
  printList(printer, first, "start_index_map", getStartIndexMap());
  printer << (first ? "" : ", ") << "index_vector_dim = " << getIndexVectorDim()
          << '>';
}

#define GET_ATTRDEF_CLASSES
#include "pipewave/Dialect/StableHLO/IR/StablehloAttrs.cpp.inc"

#include "pipewave/Dialect/StableHLO/IR/StablehloEnums.cpp.inc"

void StableHLODialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pipewave/Dialect/StableHLO/IR/StablehloAttrs.cpp.inc"
      >();
}
