//===- StablehloDialect.cpp - The stablehlo dialect subset ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Registers the operations and attributes, lets JAX's private helpers
// (`func.call @relu`, `@log_softmax`, ...) inline, and turns an operation
// outside the subset into a parse error that names it.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pipewave::stablehlo;

#include "pipewave/Dialect/StableHLO/IR/StablehloDialect.cpp.inc"

namespace {

/// Every stablehlo operation is pure or holds only pure ones: all inline.
struct StablehloInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};

/// The parser of every operation name the dialect does not define: an error
/// that names the operation and says why it is left out.
ParseResult parseUnsupported(OpAsmParser &parser, OperationState &state) {
  StringRef name = state.name.getStringRef();
  StringRef why = "it is not in pipewave's StableHLO subset";
  if (name == "stablehlo.while" || name == "stablehlo.case" ||
      name == "stablehlo.if")
    why = "control flow (while/case/if) cannot be imported; unroll loops "
          "and use select";
  else if (name == "stablehlo.custom_call")
    why = "custom calls cannot be imported";
  else if (name == "stablehlo.sharding" || name.contains("collective") ||
           name == "stablehlo.all_reduce" || name == "stablehlo.all_gather")
    why = "pipewave partitions the model itself; lower it without shardings";
  // The parser prefixes "custom op 'NAME' ".
  return parser.emitError(parser.getNameLoc()) << "is unsupported: " << why;
}

} // namespace

void StableHLODialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pipewave/Dialect/StableHLO/IR/StablehloOps.cpp.inc"
      >();
  registerAttributes();
  addInterfaces<StablehloInlinerInterface>();
}

std::optional<Dialect::ParseOpHook>
StableHLODialect::getParseOperationHook(StringRef) const {
  return ParseOpHook(parseUnsupported);
}
