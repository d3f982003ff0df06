//===- ChloDialect.cpp - The chlo dialect subset --------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace pipewave::chlo;

#include "pipewave/Dialect/StableHLO/IR/ChloDialect.cpp.inc"

#define GET_OP_CLASSES
#include "pipewave/Dialect/StableHLO/IR/ChloOps.cpp.inc"

namespace {
/// chlo operations are pure: all inline.
struct ChloInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
};

ParseResult parseUnsupported(OpAsmParser &parser, OperationState &state) {
  // The parser prefixes "custom op 'NAME' ".
  return parser.emitError(parser.getNameLoc())
         << "is unsupported: it is not in pipewave's StableHLO subset";
}
} // namespace

void ChloDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pipewave/Dialect/StableHLO/IR/ChloOps.cpp.inc"
      >();
  addInterfaces<ChloInlinerInterface>();
}

std::optional<Dialect::ParseOpHook>
ChloDialect::getParseOperationHook(StringRef) const {
  return ParseOpHook(parseUnsupported);
}
