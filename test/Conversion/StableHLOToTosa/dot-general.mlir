// dot_general: operands to [batch, free, contract] / [batch, contract, free],
// one tosa.matmul with zero zero-points, the result reshaped.
// RUN: pipewave-opt %s --stablehlo-to-tosa | FileCheck %s

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> tensor<8x16xf32> {
  // CHECK: %[[A:.*]] = tosa.reshape %arg0, %{{.*}} -> tensor<1x8x4xf32>
  // CHECK: %[[B:.*]] = tosa.reshape %arg1, %{{.*}} -> tensor<1x4x16xf32>
  // CHECK: %[[M:.*]] = tosa.matmul %[[A]], %[[B]], %[[ZP:.*]], %[[ZP]] : (tensor<1x8x4xf32>, tensor<1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  // CHECK: tosa.reshape %[[M]], %{{.*}} -> tensor<8x16xf32>
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<4x2x8x8xf32>, %k: tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32> {
  // q k^T over batch dims [0, 1]: k is transposed to [batch, contract, free].
  // CHECK: %[[Q:.*]] = tosa.reshape %arg0, %{{.*}} -> tensor<8x8x8xf32>
  // CHECK: %[[KT:.*]] = tosa.transpose %arg1 {perms = array<i32: 0, 1, 3, 2>}
  // CHECK: %[[K:.*]] = tosa.reshape %[[KT]], %{{.*}} -> tensor<8x8x8xf32>
  // CHECK: %[[M:.*]] = tosa.matmul %[[Q]], %[[K]]
  // CHECK: tosa.reshape %[[M]], %{{.*}} -> tensor<4x2x8x8xf32>
  %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
  return %0 : tensor<4x2x8x8xf32>
}

// CHECK-LABEL: func.func @batched_rhs_first
func.func @batched_rhs_first(%a: tensor<3x2x5xf32>, %b: tensor<5x2x7xf32>) -> tensor<2x3x7xf32> {
  // Batch dim 1 of lhs and rhs, contracting lhs 2 with rhs 0.
  // CHECK: tosa.transpose %arg0 {perms = array<i32: 1, 0, 2>} : (tensor<3x2x5xf32>) -> tensor<2x3x5xf32>
  // CHECK: tosa.transpose %arg1 {perms = array<i32: 1, 0, 2>} : (tensor<5x2x7xf32>) -> tensor<2x5x7xf32>
  // CHECK: tosa.matmul {{.*}} -> tensor<2x3x7xf32>
  %0 = stablehlo.dot_general %a, %b, batching_dims = [1] x [1], contracting_dims = [2] x [0] : (tensor<3x2x5xf32>, tensor<5x2x7xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}
