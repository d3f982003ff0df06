// Operations outside the subset are parse errors that name them; verifier
// errors of the subset.
// RUN: pipewave-opt %s -split-input-file -verify-diagnostics

func.func @while(%x: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{custom op 'stablehlo.while' is unsupported: control flow (while/case/if) cannot be imported; unroll loops and use select}}
  %0 = stablehlo.while(%i = %x) : tensor<i32>
  return %0 : tensor<i32>
}

// -----

// In the generic form, MLIR's own parser names the operation.
func.func @case(%p: tensor<i32>) {
  // expected-error @+1 {{unregistered operation 'stablehlo.case' found in dialect ('stablehlo')}}
  %0 = "stablehlo.case"(%p) ({
    stablehlo.return %p : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return
}

// -----

func.func @custom_call(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'stablehlo.custom_call' is unsupported: custom calls cannot be imported}}
  %0 = stablehlo.custom_call @Sharding(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'stablehlo.cbrt' is unsupported: it is not in pipewave's StableHLO subset}}
  %0 = stablehlo.cbrt %x : tensor<4xf32>
  return
}

// -----

func.func @unknown_chlo(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'chlo.lgamma' is unsupported: it is not in pipewave's StableHLO subset}}
  %0 = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @select_pred(%x: tensor<4xf32>) {
  // expected-error @+1 {{predicate must be a tensor of i1}}
  %0 = stablehlo.select %x, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @select_shape(%p: tensor<2xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{predicate must be a scalar or shaped like the operands}}
  %0 = stablehlo.select %p, %x, %x : (tensor<2xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @transpose(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation entry 0 repeats}}
  %0 = stablehlo.transpose %x, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @broadcast(%x: tensor<2xf32>) {
  // expected-error @+1 {{broadcast dimension 3 is out of range [0, 2)}}
  %0 = stablehlo.broadcast_in_dim %x, dims = [3] : (tensor<2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @dot(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{lhs and rhs must batch and contract as many dimensions each}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @iota() {
  // expected-error @+1 {{iota dimension 2 is out of range for rank 2}}
  %0 = stablehlo.iota dim = 2 : tensor<8x8xi32>
  return
}

// -----

func.func @slice(%x: tensor<4xf32>) {
  // expected-error @+1 {{strides must be positive}}
  %0 = stablehlo.slice %x [0:4:0] : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce(%x: tensor<8xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{unsupported operation 'stablehlo.cbrt' in a reducer}}
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.cbrt across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @precision(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{unknown precision 'FAST'}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [FAST, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gather_field(%t: tensor<16x16xf32>, %i: tensor<4x1xi32>) {
  // expected-error @+1 {{unknown field 'offset_dimz'}}
  %0 = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dimz = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<16x16xf32>, tensor<4x1xi32>) -> tensor<4x16xf32>
  return
}
