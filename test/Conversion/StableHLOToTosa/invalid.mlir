// What stablehlo-to-tosa cannot convert is an error at the operation.
// RUN: pipewave-opt %s --stablehlo-to-tosa -split-input-file -verify-diagnostics

// expected-error @+1 {{dynamic shapes are not supported: argument of type 'tensor<?x4xf32>'}}
func.func @dynamic_arg(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>, %s: tensor<1xindex>) {
  // expected-error @+1 {{dynamic shapes are not supported: 'stablehlo.reshape' has a result of type 'tensor<?xf32>'}}
  %0 = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @strided_slice(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'stablehlo.slice' op with strides other than 1 is not supported}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.slice'}}
  %0 = stablehlo.slice %x [0:4:2] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @interior_pad(%x: tensor<2xf32>, %z: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'stablehlo.pad' op with interior or negative padding is not supported}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.pad'}}
  %0 = stablehlo.pad %x, %z, low = [0], high = [0], interior = [1] : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_value(%x: tensor<2xf32>, %z: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{'stablehlo.pad' op needs a constant padding value}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.pad'}}
  %0 = stablehlo.pad %x, %z, low = [1], high = [0], interior = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @unsigned(%x: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+2 {{'stablehlo.compare' op UNSIGNED comparisons are not supported}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.compare'}}
  %0 = stablehlo.compare LT, %x, %x, UNSIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @int_dot(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  // expected-error @+2 {{'stablehlo.dot_general' op is only supported on floats of one type}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.dot_general'}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @float_and(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'stablehlo.and' op on floating-point operands is not supported}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.and'}}
  %0 = stablehlo.and %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_body(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+2 {{'stablehlo.reduce' op is only supported with one input and a body of one add, maximum, minimum, multiply, and or or}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.reduce'}}
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.subtract across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @partial_slice(%t: tensor<16x8xf32>, %i: tensor<4x1xi32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{'stablehlo.gather' op is not supported: a slice that does not take a whole dimension}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.gather'}}
  %0 = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<16x8xf32>, tensor<4x1xi32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @batched_offsets(%t: tensor<4x16x8xf32>, %i: tensor<4x1xi32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{'stablehlo.gather' op is not supported: a gather with batching dimensions must index one collapsed dimension and keep no offset dimensions (take_along_axis)}}
  // expected-error @+1 {{failed to legalize operation 'stablehlo.gather'}}
  %0 = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1, 8>}> : (tensor<4x16x8xf32>, tensor<4x1xi32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
