// Shape operations: broadcast_in_dim as transpose/reshape/tile, the others as
// their TOSA namesakes.
// RUN: pipewave-opt %s --stablehlo-to-tosa | FileCheck %s

// CHECK-LABEL: func.func @broadcast
func.func @broadcast(%x: tensor<16xf32>, %y: tensor<2x3xf32>) -> (tensor<8x16xf32>, tensor<3x4x2xf32>) {
  // Operand dim 0 -> result dim 1: reshape to [1, 16], tile by [8, 1].
  // CHECK: %[[R:.*]] = tosa.reshape %arg0, %{{.*}} -> tensor<1x16xf32>
  // CHECK: tosa.tile %[[R]], %{{.*}} : (tensor<1x16xf32>, !tosa.shape<2>) -> tensor<8x16xf32>
  // dims = [2, 0]: the operand is transposed to increasing result dims first.
  // CHECK: %[[T:.*]] = tosa.transpose %arg1 {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: %[[R2:.*]] = tosa.reshape %[[T]], %{{.*}} -> tensor<3x1x2xf32>
  // CHECK: tosa.tile %[[R2]], %{{.*}} -> tensor<3x4x2xf32>
  %0 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %1 = stablehlo.broadcast_in_dim %y, dims = [2, 0] : (tensor<2x3xf32>) -> tensor<3x4x2xf32>
  return %0, %1 : tensor<8x16xf32>, tensor<3x4x2xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<2x3xf32>, %s: tensor<f32>) -> (tensor<6xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<4x3xf32>, tensor<4x4xf32>) {
  // CHECK: tosa.reshape %arg0, %{{.*}} : (tensor<2x3xf32>, !tosa.shape<1>) -> tensor<6xf32>
  // CHECK: tosa.transpose %arg0 {perms = array<i32: 1, 0>}
  // CHECK: tosa.slice %arg0, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x2xf32>
  // CHECK: tosa.concat %arg0, %arg0 {axis = 0 : i32}
  // CHECK: tosa.pad %arg0, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.slice %x [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %3 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %4 = stablehlo.pad %x, %c, low = [0, 1], high = [2, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0, %1, %2, %3, %4 : tensor<6xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<4x3xf32>, tensor<4x4xf32>
}
