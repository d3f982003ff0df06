//===- PassEnums.td - Enumerated options of the pipe passes -*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The values of the enumerated pass options of Passes.td. TableGen generates
// the C++ enums with `stringify<Enum>` / `symbolize<Enum>` (PassEnums.h.inc);
// the options list the same spellings with `clEnumValN`, so the option
// parser rejects any other value.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSENUMS_TD
#define PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSENUMS_TD

include "mlir/IR/EnumAttr.td"

def Pipe_PartitionStrategy : I32Enum<"PartitionStrategy",
    "how pipe-partition cuts the entry function", [
      I32EnumCase<"Auto", 0, "auto">,
      I32EnumCase<"Manual", 1, "manual">,
      I32EnumCase<"Uniform", 2, "uniform">,
      I32EnumCase<"Balanced", 3, "balanced">
    ]> {
  let cppNamespace = "::pipewave::pipe";
}

def Pipe_RecomputePolicy : I32Enum<"RecomputePolicy",
    "what pipe-recompute makes the backward recompute", [
      I32EnumCase<"None", 0, "none">,
      I32EnumCase<"Full", 1, "full">,
      I32EnumCase<"Selective", 2, "selective">
    ]> {
  let cppNamespace = "::pipewave::pipe";
}

#endif // PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSENUMS_TD
