//===- StablehloOps.td - stablehlo operations (subset) -----*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The StableHLO operations JAX emits for training losses, with upstream's
// names, operand/property names and pretty assembly formats (see the public
// StableHLO specification, docs/spec.md). Verifiers check local properties
// only; shapes are checked where the conversion needs them.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLOOPS_TD
#define PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLOOPS_TD

include "pipewave/Dialect/StableHLO/IR/StablehloBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class StableHLO_Op<string mnemonic, list<Trait> traits = []> :
    Op<StableHLO_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// `%r = stablehlo.exponential %x : tensor<4xf32>` (one type when the operand
/// and result types are equal, else `(T) -> R`).
class StableHLO_UnaryOp<string mnemonic, string what> :
    StableHLO_Op<mnemonic, [Pure, SameOperandsAndResultShape]> {
  let summary = what # ", elementwise";
  let description = "Upstream `stablehlo." # mnemonic # "`: " # what #
    " of each element.\n\n```mlir\n%r = stablehlo." # mnemonic #
    " %x : tensor<4xf32>\n```";
  let arguments = (ins AnyTensor:$operand);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` custom<SameOperandsAndResultType>(type($operand),
                                                             type($result))
  }];
}

def StableHLO_AbsOp : StableHLO_UnaryOp<"abs", "absolute value">;
def StableHLO_CosineOp : StableHLO_UnaryOp<"cosine", "cosine">;
def StableHLO_ExpOp : StableHLO_UnaryOp<"exponential", "e^x">;
def StableHLO_Expm1Op :
    StableHLO_UnaryOp<"exponential_minus_one", "e^x - 1">;
def StableHLO_LogOp : StableHLO_UnaryOp<"log", "natural logarithm">;
def StableHLO_Log1pOp : StableHLO_UnaryOp<"log_plus_one", "log(1 + x)">;
def StableHLO_LogisticOp : StableHLO_UnaryOp<"logistic", "1 / (1 + e^-x)">;
def StableHLO_NegOp : StableHLO_UnaryOp<"negate", "negation">;
def StableHLO_NotOp : StableHLO_UnaryOp<"not", "logical not">;
def StableHLO_RsqrtOp : StableHLO_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def StableHLO_SineOp : StableHLO_UnaryOp<"sine", "sine">;
def StableHLO_SqrtOp : StableHLO_UnaryOp<"sqrt", "square root">;
def StableHLO_TanhOp : StableHLO_UnaryOp<"tanh", "hyperbolic tangent">;
def StableHLO_ConvertOp : StableHLO_UnaryOp<"convert",
    "conversion to the result element type">;

/// `%r = stablehlo.add %a, %b : tensor<4xf32>`.
class StableHLO_BinaryOp<string mnemonic, string what> :
    StableHLO_Op<mnemonic, [Pure, SameOperandsAndResultShape]> {
  let summary = what # ", elementwise";
  let description = "Upstream `stablehlo." # mnemonic # "`: " # what #
    " of equally shaped tensors.\n\n```mlir\n%r = stablehlo." # mnemonic #
    " %a, %b : tensor<4xf32>\n```";
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict
      `:` custom<SameOperandsAndResultType>(type($lhs), type($rhs),
                                            type($result))
  }];
}

def StableHLO_AddOp : StableHLO_BinaryOp<"add", "sum">;
def StableHLO_SubtractOp : StableHLO_BinaryOp<"subtract", "difference">;
def StableHLO_MulOp : StableHLO_BinaryOp<"multiply", "product">;
def StableHLO_DivOp : StableHLO_BinaryOp<"divide", "quotient">;
def StableHLO_MaxOp : StableHLO_BinaryOp<"maximum", "maximum">;
def StableHLO_MinOp : StableHLO_BinaryOp<"minimum", "minimum">;
def StableHLO_PowOp : StableHLO_BinaryOp<"power", "power">;
def StableHLO_AndOp : StableHLO_BinaryOp<"and", "logical/bitwise and">;
def StableHLO_OrOp : StableHLO_BinaryOp<"or", "logical/bitwise or">;

def StableHLO_ClampOp : StableHLO_Op<"clamp", [Pure]> {
  let summary = "min(max(operand, min), max); min and max may be scalars";
  let description = [{
    ```mlir
    %r = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$min, AnyTensor:$operand, AnyTensor:$max);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $min `,` $operand `,` $max attr-dict
      `:` custom<SameOperandsAndResultType>(type($min), type($operand),
                                            type($max), type($result))
  }];
}

def StableHLO_SelectOp : StableHLO_Op<"select", [Pure]> {
  let summary = "pred ? on_true : on_false, elementwise; pred may be a scalar";
  let description = [{
    ```mlir
    %r = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$pred, AnyTensor:$on_true,
                       AnyTensor:$on_false);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    operands attr-dict `:` custom<SelectOpType>(type($pred), type($on_true),
                                                 type($on_false),
                                                 type($result))
  }];
  let hasVerifier = 1;
}

def StableHLO_CompareOp : StableHLO_Op<"compare", [Pure]> {
  let summary = "Elementwise comparison producing i1";
  let description = [{
    ```mlir
    %r = stablehlo.compare LT, %a, %b, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs,
                       StableHLO_ComparisonDirectionAttr:$comparison_direction,
                       OptionalAttr<StableHLO_ComparisonTypeAttr>:$compare_type);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    `` $comparison_direction `,` $lhs `,` $rhs (`,` `` $compare_type^)?
      attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Constants and index tensors
//===----------------------------------------------------------------------===//

def StableHLO_ConstantOp : StableHLO_Op<"constant", [Pure, ConstantLike,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A constant tensor";
  let description = [{
    ```mlir
    %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyTensor:$output);
  let hasCustomAssemblyFormat = 1;
  let hasFolder = 1;
  let hasVerifier = 1;
}

def StableHLO_IotaOp : StableHLO_Op<"iota", [Pure]> {
  let summary = "0, 1, 2, ... along one dimension";
  let description = [{
    ```mlir
    %i = stablehlo.iota dim = 0 : tensor<8x8xi32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$iota_dimension);
  let results = (outs AnyTensor:$output);
  let assemblyFormat = "`dim` `=` $iota_dimension attr-dict `:` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shapes and data movement
//===----------------------------------------------------------------------===//

def StableHLO_BroadcastInDimOp : StableHLO_Op<"broadcast_in_dim", [Pure]> {
  let summary = "Broadcast: operand dim i becomes result dim dims[i]";
  let description = [{
    ```mlir
    %r = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$operand,
                       DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` custom<DimList>($broadcast_dimensions)
      attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def StableHLO_ReshapeOp : StableHLO_Op<"reshape", [Pure]> {
  let summary = "Same elements, another static shape";
  let description = [{
    ```mlir
    %r = stablehlo.reshape %x : (tensor<4x16xf32>) -> tensor<4x2x8xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$operand);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def StableHLO_TransposeOp : StableHLO_Op<"transpose", [Pure]> {
  let summary = "Permutes dimensions: result dim i is operand dim dims[i]";
  let description = [{
    ```mlir
    %r = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` custom<DimList>($permutation)
      attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def StableHLO_SliceOp : StableHLO_Op<"slice", [Pure]> {
  let summary = "A strided static slice";
  let description = [{
    `[start:limit:stride, ...]`, the stride left out when it is 1.

    ```mlir
    %r = stablehlo.slice %x [0:2, 1:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$operand, DenseI64ArrayAttr:$start_indices,
                       DenseI64ArrayAttr:$limit_indices,
                       DenseI64ArrayAttr:$strides);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand custom<SliceRanges>($start_indices, $limit_indices, $strides)
      attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def StableHLO_ConcatenateOp : StableHLO_Op<"concatenate", [Pure]> {
  let summary = "Concatenation along one dimension";
  let description = [{
    ```mlir
    %r = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyTensor>:$inputs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dimension);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    custom<OperandsAndComma>($inputs) `dim` `=` $dimension attr-dict
      `:` functional-type(operands, results)
  }];
}

def StableHLO_PadOp : StableHLO_Op<"pad", [Pure]> {
  let summary = "Edge and interior padding with a scalar value";
  let description = [{
    ```mlir
    %r = stablehlo.pad %x, %zero, low = [0, 1], high = [2, 0], interior = [0, 0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$operand, AnyTensor:$padding_value,
                       DenseI64ArrayAttr:$edge_padding_low,
                       DenseI64ArrayAttr:$edge_padding_high,
                       DenseI64ArrayAttr:$interior_padding);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` custom<DimList>($edge_padding_low)
      `,` `high` `=` custom<DimList>($edge_padding_high)
      `,` `interior` `=` custom<DimList>($interior_padding)
      attr-dict `:` functional-type(operands, results)
  }];
}

def StableHLO_GatherOp : StableHLO_Op<"gather", [Pure]> {
  let summary = "Slices of `operand` at the positions in `start_indices`";
  let description = [{
    Printed in the generic form, as upstream prints it:

    ```mlir
    %r = "stablehlo.gather"(%table, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<16x16xf32>, tensor<4x8x1xi32>) -> tensor<4x8x16xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$operand, AnyTensor:$start_indices,
                       StableHLO_GatherDimensionNumbers:$dimension_numbers,
                       DenseI64ArrayAttr:$slice_sizes,
                       DefaultValuedOptionalAttr<BoolAttr, "false">:$indices_are_sorted);
  let results = (outs AnyTensor:$result);
}

def StableHLO_DotGeneralOp : StableHLO_Op<"dot_general", [Pure]> {
  let summary = "Batched contraction of two tensors";
  let description = [{
    ```mlir
    %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs,
                       StableHLO_DotDimensionNumbers:$dot_dimension_numbers,
                       OptionalAttr<StableHLO_PrecisionConfigAttr>:$precision_config);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` custom<DotDimensionNumbers>($dot_dimension_numbers)
      `` custom<PrecisionConfig>($precision_config)
      attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def StableHLO_ReduceOp : StableHLO_Op<"reduce", [
    RecursiveMemoryEffects, SameVariadicOperandSize,
    SingleBlock]> {
  let summary = "Reduction over dimensions with a reducer body";
  let description = [{
    The compact form is printed when the body is one binary operation of
    its two arguments:

    ```mlir
    %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
    ```

    else the body follows `reducer(%a: tensor<f32>, %b: tensor<f32>)`.
  }];
  let arguments = (ins Variadic<AnyTensor>:$inputs,
                       Variadic<AnyTensor>:$init_values,
                       DenseI64ArrayAttr:$dimensions);
  let results = (outs Variadic<AnyTensor>);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def StableHLO_ReturnOp : StableHLO_Op<"return", [Pure, Terminator]> {
  let summary = "Terminator of a region of a stablehlo operation";
  let description = [{
    ```mlir
    stablehlo.return %r : tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$results);
  let assemblyFormat = "$results attr-dict (`:` type($results)^)?";
}

#endif // PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLOOPS_TD
