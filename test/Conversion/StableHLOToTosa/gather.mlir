// The two gathers JAX emits.
// RUN: pipewave-opt %s --stablehlo-to-tosa | FileCheck %s

// CHECK-LABEL: func.func @embedding
func.func @embedding(%table: tensor<16x8xf32>, %tokens: tensor<4x3x1xi32>) -> tensor<4x3x8xf32> {
  // table[tokens]: the indices, clamped into [0, 15], pick rows of the
  // [1, 16, 8] table.
  // CHECK: %[[I:.*]] = tosa.reshape %arg1, %{{.*}} -> tensor<12x1xi32>
  // CHECK: %[[C:.*]] = tosa.clamp %{{.*}} {max_val = 15 : i32, min_val = 0 : i32}
  // CHECK: %[[T:.*]] = tosa.reshape %arg0, %{{.*}} -> tensor<1x16x8xf32>
  // CHECK: %[[G:.*]] = tosa.gather %[[T]], %{{.*}} : (tensor<1x16x8xf32>, tensor<1x12xi32>) -> tensor<1x12x8xf32>
  // CHECK: tosa.reshape %[[G]], %{{.*}} -> tensor<4x3x8xf32>
  %0 = "stablehlo.gather"(%table, %tokens) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<16x8xf32>, tensor<4x3x1xi32>) -> tensor<4x3x8xf32>
  return %0 : tensor<4x3x8xf32>
}

// CHECK-LABEL: func.func @offset_first
func.func @offset_first(%table: tensor<8x16xf32>, %idx: tensor<5xi32>) -> tensor<8x5xf32> {
  // Columns of the table (indexed dim 1), offset dim 0 placed first in the
  // result: the table is transposed, the result transposed back.
  // CHECK: tosa.transpose %arg0 {perms = array<i32: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  // CHECK: tosa.gather {{.*}} -> tensor<1x5x8xf32>
  // CHECK: tosa.transpose %{{.*}} {perms = array<i32: 1, 0>} : (tensor<5x8xf32>) -> tensor<8x5xf32>
  %0 = "stablehlo.gather"(%table, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 8, 1>}> : (tensor<8x16xf32>, tensor<5xi32>) -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// CHECK-LABEL: func.func @take_along_axis
func.func @take_along_axis(%logp: tensor<4x8x16xf32>, %idx: tensor<4x8x1x1xi32>) -> tensor<4x8x1xf32> {
  // One-hot: (idx == iota(16)) selects the picked entry, a sum over the
  // last dimension reads it. No batch-sized constant.
  // CHECK-DAG: %[[IOTA:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]]> : tensor<1x1x1x16xi32>}>
  // CHECK-DAG: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1x1xf32>}>
  // CHECK: %[[T:.*]] = tosa.reshape %arg0, %{{.*}} -> tensor<4x8x1x16xf32>
  // CHECK: %[[C:.*]] = tosa.clamp %{{.*}} {max_val = 15 : i32, min_val = 0 : i32}
  // CHECK: %[[HIT:.*]] = tosa.equal %[[C]], %[[IOTA]] : (tensor<4x8x1x1xi32>, tensor<1x1x1x16xi32>) -> tensor<4x8x1x16xi1>
  // CHECK: %[[S:.*]] = tosa.select %[[HIT]], %[[T]], %[[ZERO]]
  // CHECK: %[[R:.*]] = tosa.reduce_sum %[[S]] {axis = 3 : i32}
  // CHECK: tosa.reshape %[[R]], %{{.*}} -> tensor<4x8x1xf32>
  %0 = "stablehlo.gather"(%logp, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<4x8x16xf32>, tensor<4x8x1x1xi32>) -> tensor<4x8x1xf32>
  return %0 : tensor<4x8x1xf32>
}
