//===- ChloOps.td - chlo operations (subset) ---------------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The "client HLO" operations JAX emits besides StableHLO, with upstream's
// names and pretty format (`chlo.square %x : tensor<4xf32> -> tensor<4xf32>`).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_STABLEHLO_IR_CHLOOPS_TD
#define PIPEWAVE_DIALECT_STABLEHLO_IR_CHLOOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Chlo_Dialect : Dialect {
  let name = "chlo";
  let cppNamespace = "::pipewave::chlo";
  let summary = "The subset of CHLO that JAX models are imported from";
  let description = [{
    Elementwise operations JAX emits in the `chlo` namespace; converted by
    `stablehlo-to-tosa` with the `stablehlo` ones.
  }];
  let extraClassDeclaration = [{
    /// Parses every operation name the dialect does not define as an error
    /// that names it.
    std::optional<ParseOpHook>
    getParseOperationHook(::llvm::StringRef opName) const override;
  }];
}

class Chlo_UnaryOp<string mnemonic, string what> :
    Op<Chlo_Dialect, mnemonic, [Pure, SameOperandsAndResultShape]> {
  let summary = what # ", elementwise";
  let description = "Upstream `chlo." # mnemonic # "`: " # what #
    ".\n\n```mlir\n%r = chlo." # mnemonic #
    " %x : tensor<4xf32> -> tensor<4xf32>\n```";
  let arguments = (ins AnyTensor:$operand);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` type($operand) `->` type($result)
  }];
}

def Chlo_SquareOp : Chlo_UnaryOp<"square", "x * x">;
def Chlo_ErfOp : Chlo_UnaryOp<"erf", "the error function">;

#endif // PIPEWAVE_DIALECT_STABLEHLO_IR_CHLOOPS_TD
