//===- StablehloBase.td - stablehlo dialect, enums, attributes -*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The `stablehlo` dialect subset that pipewave imports, with upstream's
// names: the enums and attributes below print and parse as upstream's
// (`#stablehlo<comparison_direction LT>`, `#stablehlo.dot<...>`,
// `#stablehlo.gather<...>`), as given by the public StableHLO specification.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLOBASE_TD
#define PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLOBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def StableHLO_Dialect : Dialect {
  let name = "stablehlo";
  let cppNamespace = "::pipewave::stablehlo";
  let summary = "The subset of StableHLO that JAX models are imported from";
  let description = [{
    pipewave's own definition of the StableHLO operations a JAX training
    loss uses (`jax.jit(loss).lower(...).as_text()`), with upstream's
    operation names, property names and assembly formats, so that JAX's
    pretty output and the generic form parse alike. `stablehlo-to-tosa`
    converts it to pipewave's TOSA input contract. An operation outside the
    subset is a parse error naming it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Parses every operation name the dialect does not define as an error
    /// that names it.
    std::optional<ParseOpHook>
    getParseOperationHook(::llvm::StringRef opName) const override;

  private:
    /// Registers the attributes (StablehloAttrs.cpp, where their storage
    /// classes are defined).
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def StableHLO_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "comparison direction", [
      I32EnumAttrCase<"EQ", 0>, I32EnumAttrCase<"NE", 1>,
      I32EnumAttrCase<"GE", 2>, I32EnumAttrCase<"GT", 3>,
      I32EnumAttrCase<"LE", 4>, I32EnumAttrCase<"LT", 5>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::pipewave::stablehlo";
}
def StableHLO_ComparisonDirectionAttr : EnumAttr<StableHLO_Dialect,
    StableHLO_ComparisonDirection, "comparison_direction">;

def StableHLO_ComparisonType : I32EnumAttr<"ComparisonType",
    "comparison type", [
      I32EnumAttrCase<"NOTYPE", 0>, I32EnumAttrCase<"FLOAT", 1>,
      I32EnumAttrCase<"TOTALORDER", 2>, I32EnumAttrCase<"SIGNED", 3>,
      I32EnumAttrCase<"UNSIGNED", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::pipewave::stablehlo";
}
def StableHLO_ComparisonTypeAttr : EnumAttr<StableHLO_Dialect,
    StableHLO_ComparisonType, "comparison_type">;

def StableHLO_Precision : I32EnumAttr<"Precision", "dot precision", [
      I32EnumAttrCase<"DEFAULT", 0>, I32EnumAttrCase<"HIGH", 1>,
      I32EnumAttrCase<"HIGHEST", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::pipewave::stablehlo";
}
def StableHLO_PrecisionAttr : EnumAttr<StableHLO_Dialect, StableHLO_Precision,
    "precision">;
def StableHLO_PrecisionConfigAttr :
    TypedArrayAttrBase<StableHLO_PrecisionAttr, "precision config">;

//===----------------------------------------------------------------------===//
// Structured attributes
//===----------------------------------------------------------------------===//

def StableHLO_DotDimensionNumbers : AttrDef<StableHLO_Dialect,
    "DotDimensionNumbers"> {
  let mnemonic = "dot";
  let summary = "The dimensions `dot_general` batches and contracts";
  let description = [{
    `#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions
    = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions =
    [1]>`; empty lists are left out.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t">:$lhsBatchingDimensions,
    OptionalArrayRefParameter<"int64_t">:$rhsBatchingDimensions,
    OptionalArrayRefParameter<"int64_t">:$lhsContractingDimensions,
    OptionalArrayRefParameter<"int64_t">:$rhsContractingDimensions);
  let hasCustomAssemblyFormat = 1;
}

def StableHLO_GatherDimensionNumbers : AttrDef<StableHLO_Dialect,
    "GatherDimensionNumbers"> {
  let mnemonic = "gather";
  let summary = "How `gather` maps indices to slices of its operand";
  let description = [{
    `#stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0],
    operand_batching_dims = [..], start_indices_batching_dims = [..],
    start_index_map = [0], index_vector_dim = 2>`; empty lists are left out.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t">:$offsetDims,
    OptionalArrayRefParameter<"int64_t">:$collapsedSliceDims,
    OptionalArrayRefParameter<"int64_t">:$operandBatchingDims,
    OptionalArrayRefParameter<"int64_t">:$startIndicesBatchingDims,
    OptionalArrayRefParameter<"int64_t">:$startIndexMap,
    "int64_t":$indexVectorDim);
  let hasCustomAssemblyFormat = 1;
}

#endif // PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLOBASE_TD
