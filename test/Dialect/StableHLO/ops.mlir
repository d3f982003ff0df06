// Every operation of pipewave's stablehlo/chlo subset, in upstream's pretty
// form (as JAX's as_text() prints it), parses and prints back unchanged;
// printed in the generic form and read again, it prints the same.
// RUN: pipewave-opt %s | FileCheck %s
// RUN: pipewave-opt %s | pipewave-opt | FileCheck %s
// RUN: pipewave-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: pipewave-opt %s --mlir-print-op-generic | pipewave-opt | FileCheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4xf32>, %b: tensor<4xi1>, %i: tensor<4xi32>) {
  // CHECK-NEXT: %0 = stablehlo.abs %arg0 : tensor<4xf32>
  // CHECK-NEXT: %1 = stablehlo.cosine %arg0 : tensor<4xf32>
  // CHECK-NEXT: %2 = stablehlo.exponential %arg0 : tensor<4xf32>
  // CHECK-NEXT: %3 = stablehlo.exponential_minus_one %arg0 : tensor<4xf32>
  // CHECK-NEXT: %4 = stablehlo.log %arg0 : tensor<4xf32>
  // CHECK-NEXT: %5 = stablehlo.log_plus_one %arg0 : tensor<4xf32>
  // CHECK-NEXT: %6 = stablehlo.logistic %arg0 : tensor<4xf32>
  // CHECK-NEXT: %7 = stablehlo.negate %arg0 : tensor<4xf32>
  // CHECK-NEXT: %8 = stablehlo.not %arg1 : tensor<4xi1>
  // CHECK-NEXT: %9 = stablehlo.rsqrt %arg0 : tensor<4xf32>
  // CHECK-NEXT: %10 = stablehlo.sine %arg0 : tensor<4xf32>
  // CHECK-NEXT: %11 = stablehlo.sqrt %arg0 : tensor<4xf32>
  // CHECK-NEXT: %12 = stablehlo.tanh %arg0 : tensor<4xf32>
  // CHECK-NEXT: %13 = stablehlo.convert %arg2 : (tensor<4xi32>) -> tensor<4xf32>
  // CHECK-NEXT: %14 = stablehlo.convert %arg0 : tensor<4xf32>
  // CHECK-NEXT: %15 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
  // CHECK-NEXT: %16 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
  // GENERIC: "stablehlo.abs"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
  // GENERIC: "stablehlo.convert"(%{{.*}}) : (tensor<4xi32>) -> tensor<4xf32>
  // GENERIC: "chlo.square"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = stablehlo.abs %x : tensor<4xf32>
  %1 = stablehlo.cosine %x : tensor<4xf32>
  %2 = stablehlo.exponential %x : tensor<4xf32>
  %3 = stablehlo.exponential_minus_one %x : tensor<4xf32>
  %4 = stablehlo.log %x : tensor<4xf32>
  %5 = stablehlo.log_plus_one %x : tensor<4xf32>
  %6 = stablehlo.logistic %x : tensor<4xf32>
  %7 = stablehlo.negate %x : tensor<4xf32>
  %8 = stablehlo.not %b : tensor<4xi1>
  %9 = stablehlo.rsqrt %x : tensor<4xf32>
  %10 = stablehlo.sine %x : tensor<4xf32>
  %11 = stablehlo.sqrt %x : tensor<4xf32>
  %12 = stablehlo.tanh %x : tensor<4xf32>
  %13 = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xf32>
  %14 = stablehlo.convert %x : tensor<4xf32>
  %15 = chlo.square %x : tensor<4xf32> -> tensor<4xf32>
  %16 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %b: tensor<4xi1>,
                  %s: tensor<f32>, %p: tensor<i1>) {
  // CHECK-NEXT: %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %1 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %2 = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %3 = stablehlo.divide %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %4 = stablehlo.maximum %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %5 = stablehlo.minimum %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %6 = stablehlo.power %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %7 = stablehlo.and %arg2, %arg2 : tensor<4xi1>
  // CHECK-NEXT: %8 = stablehlo.or %arg2, %arg2 : tensor<4xi1>
  // CHECK-NEXT: %9 = stablehlo.clamp %arg3, %arg0, %arg3 : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK-NEXT: %10 = stablehlo.clamp %arg0, %arg0, %arg1 : tensor<4xf32>
  // CHECK-NEXT: %11 = stablehlo.select %arg2, %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>
  // CHECK-NEXT: %12 = stablehlo.select %arg4, %arg0, %arg1 : tensor<i1>, tensor<4xf32>
  // CHECK-NEXT: %13 = stablehlo.compare EQ, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: %14 = stablehlo.compare NE, %arg0, %arg1, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: %15 = stablehlo.compare GE, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: %16 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: %17 = stablehlo.compare LE, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: %18 = stablehlo.compare LT, %arg2, %arg2, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // GENERIC: "stablehlo.add"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // GENERIC: "stablehlo.compare"(%{{.*}}, %{{.*}}) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}>
  %0 = stablehlo.add %x, %y : tensor<4xf32>
  %1 = stablehlo.subtract %x, %y : tensor<4xf32>
  %2 = stablehlo.multiply %x, %y : tensor<4xf32>
  %3 = stablehlo.divide %x, %y : tensor<4xf32>
  %4 = stablehlo.maximum %x, %y : tensor<4xf32>
  %5 = stablehlo.minimum %x, %y : tensor<4xf32>
  %6 = stablehlo.power %x, %y : tensor<4xf32>
  %7 = stablehlo.and %b, %b : tensor<4xi1>
  %8 = stablehlo.or %b, %b : tensor<4xi1>
  %9 = stablehlo.clamp %s, %x, %s : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %10 = stablehlo.clamp %x, %x, %y : tensor<4xf32>
  %11 = stablehlo.select %b, %x, %y : tensor<4xi1>, tensor<4xf32>
  %12 = stablehlo.select %p, %x, %y : tensor<i1>, tensor<4xf32>
  %13 = stablehlo.compare EQ, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %14 = stablehlo.compare NE, %x, %y, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %15 = stablehlo.compare GE, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %16 = stablehlo.compare GT, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %17 = stablehlo.compare LE, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %18 = stablehlo.compare LT, %b, %b, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK-NEXT: %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  // CHECK-NEXT: %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK-NEXT: %c_0 = stablehlo.constant dense<true> : tensor<i1>
  // CHECK-NEXT: %0 = stablehlo.iota dim = 1 : tensor<8x8xi32>
  // GENERIC: "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  // GENERIC: "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<8x8xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %c_0 = stablehlo.constant dense<true> : tensor<i1>
  %0 = stablehlo.iota dim = 1 : tensor<8x8xi32>
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<2x3xf32>, %s: tensor<f32>, %t: tensor<16x16xf32>,
                  %i: tensor<4x8x1xi32>, %u: tensor<4x8x16xf32>,
                  %j: tensor<4x8x1x1xi32>) {
  // CHECK-NEXT: %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %2 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
  // CHECK-NEXT: %3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: %4 = stablehlo.slice %arg0 [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: %5 = stablehlo.slice %arg0 [0:2:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<1x2xf32>
  // CHECK-NEXT: %6 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %7 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [2, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  // CHECK-NEXT: %8 = "stablehlo.gather"(%arg2, %arg3) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<16x16xf32>, tensor<4x8x1xi32>) -> tensor<4x8x16xf32>
  // CHECK-NEXT: %9 = "stablehlo.gather"(%arg4, %arg5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<4x8x16xf32>, tensor<4x8x1x1xi32>) -> tensor<4x8x1xf32>
  // GENERIC: "stablehlo.broadcast_in_dim"(%{{.*}}) <{broadcast_dimensions = array<i64: 1, 2>}>
  // GENERIC: "stablehlo.transpose"(%{{.*}}) <{permutation = array<i64: 1, 0>}>
  // GENERIC: "stablehlo.slice"(%{{.*}}) <{limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 1>}>
  // GENERIC: "stablehlo.concatenate"(%{{.*}}, %{{.*}}) <{dimension = 0 : i64}>
  // GENERIC: "stablehlo.pad"(%{{.*}}, %{{.*}}) <{edge_padding_high = array<i64: 2, 0>, edge_padding_low = array<i64: 0, 1>, interior_padding = array<i64: 0, 0>}>
  %0 = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %1 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %2 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %3 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = stablehlo.slice %x [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %5 = stablehlo.slice %x [0:2:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<1x2xf32>
  %6 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %7 = stablehlo.pad %x, %s, low = [0, 1], high = [2, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  %8 = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<16x16xf32>, tensor<4x8x1xi32>) -> tensor<4x8x16xf32>
  %9 = "stablehlo.gather"(%u, %j) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<4x8x16xf32>, tensor<4x8x1x1xi32>) -> tensor<4x8x1xf32>
  return
}

// CHECK-LABEL: func.func @dot_general
func.func @dot_general(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>,
                       %c: tensor<8x4xf32>, %d: tensor<4x16xf32>) {
  // CHECK-NEXT: %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: %1 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  // CHECK-NEXT: %2 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [HIGH, HIGHEST] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  // GENERIC: "stablehlo.dot_general"(%{{.*}}, %{{.*}}) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}>
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %2 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0], precision = [HIGH, HIGHEST] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  return
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<8x2xf32>, %z: tensor<f32>, %b: tensor<4x1xi1>,
                  %t: tensor<i1>) {
  // CHECK-NEXT: %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
  // CHECK-NEXT: %1 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.maximum across dimensions = [1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<8xf32>
  // CHECK-NEXT: %2 = stablehlo.reduce(%arg2 init: %arg3) applies stablehlo.and across dimensions = [1] : (tensor<4x1xi1>, tensor<i1>) -> tensor<4xi1>
  // CHECK-NEXT: %3 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
  // CHECK-NEXT:  reducer(%arg4: tensor<f32>, %arg5: tensor<f32>)  {
  // CHECK-NEXT:   %4 = stablehlo.multiply %arg4, %arg5 : tensor<f32>
  // CHECK-NEXT:   %5 = stablehlo.add %4, %arg5 : tensor<f32>
  // CHECK-NEXT:   stablehlo.return %5 : tensor<f32>
  // CHECK-NEXT: }
  // GENERIC: "stablehlo.reduce"(%{{.*}}, %{{.*}}) <{dimensions = array<i64: 0, 1>}> ({
  // GENERIC-NEXT: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
  // GENERIC-NEXT:   "stablehlo.add"
  // GENERIC-NEXT:   "stablehlo.return"
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
  %1 = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<8xf32>
  %2 = stablehlo.reduce(%b init: %t) applies stablehlo.and across dimensions = [1] : (tensor<4x1xi1>, tensor<i1>) -> tensor<4xi1>
  %3 = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %c: tensor<f32>)  {
    %4 = stablehlo.multiply %a, %c : tensor<f32>
    %5 = stablehlo.add %4, %c : tensor<f32>
    stablehlo.return %5 : tensor<f32>
  }
  return
}

// The other reductions of the compact form: minimum and or.
// CHECK-LABEL: func.func @reduce_min_or
func.func @reduce_min_or(%x: tensor<8x2xf32>, %z: tensor<f32>,
                         %b: tensor<4x3xi1>, %f: tensor<i1>) {
  // CHECK-NEXT: %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.minimum across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
  // CHECK-NEXT: %1 = stablehlo.reduce(%arg2 init: %arg3) applies stablehlo.or across dimensions = [0, 1] : (tensor<4x3xi1>, tensor<i1>) -> tensor<i1>
  // GENERIC: sym_name = "reduce_min_or"
  // GENERIC: "stablehlo.reduce"(%{{.*}}, %{{.*}}) <{dimensions = array<i64: 0>}> ({
  // GENERIC-NEXT: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
  // GENERIC-NEXT:   "stablehlo.minimum"
  // GENERIC-NEXT:   "stablehlo.return"
  // GENERIC: "stablehlo.reduce"(%{{.*}}, %{{.*}}) <{dimensions = array<i64: 0, 1>}> ({
  // GENERIC-NEXT: ^bb0(%{{.*}}: tensor<i1>, %{{.*}}: tensor<i1>):
  // GENERIC-NEXT:   "stablehlo.or"
  // GENERIC-NEXT:   "stablehlo.return"
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.minimum across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.reduce(%b init: %f) applies stablehlo.or across dimensions = [0, 1] : (tensor<4x3xi1>, tensor<i1>) -> tensor<i1>
  return
}
