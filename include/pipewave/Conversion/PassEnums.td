//===- PassEnums.td - Enumerated options of the lowering ----*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The values of the enumerated options of the `pipe-lower-to-llvm`
// pipeline. TableGen generates the C++ enums with `stringify<Enum>` /
// `symbolize<Enum>` (PassEnums.h.inc); the options list the same spellings
// with `clEnumValN`, so the option parser rejects any other value.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CONVERSION_PASSENUMS_TD
#define PIPEWAVE_CONVERSION_PASSENUMS_TD

include "mlir/IR/EnumAttr.td"

def PipeLowering_MatmulLowering : I32Enum<"MatmulLowering",
    "how the lowering runs f32 matmuls", [
      I32EnumCase<"Auto", 0, "auto">,
      I32EnumCase<"Blas", 1, "blas">,
      I32EnumCase<"Vector", 2, "vector">,
      I32EnumCase<"Loops", 3, "loops">
    ]> {
  let cppNamespace = "::pipewave";
}

#endif // PIPEWAVE_CONVERSION_PASSENUMS_TD
