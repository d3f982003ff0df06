// After the conversion, tiles that only broadcast an operand of a
// broadcasting TOSA operation are dropped (TOSA broadcasts size-1 dims), also
// through unary operations, so no batch-sized copy of a bias is left.
// RUN: pipewave-opt %s --stablehlo-to-tosa | FileCheck %s

// CHECK-LABEL: func.func @bias
func.func @bias(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  // CHECK: %[[B:.*]] = tosa.reshape %arg1, %{{.*}} -> tensor<1x16xf32>
  // CHECK-NEXT: %[[R:.*]] = tosa.add %arg0, %[[B]] : (tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  // CHECK-NEXT: return %[[R]]
  %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %1 = stablehlo.add %x, %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @divide_by_broadcast
func.func @divide_by_broadcast(%x: tensor<4x8xf32>, %n: tensor<f32>) -> tensor<4x8xf32> {
  // x / broadcast(n) = x * reciprocal(n), the reciprocal on the [1, 1] value.
  // CHECK: %[[N:.*]] = tosa.reshape %arg1, %{{.*}} -> tensor<1x1xf32>
  // CHECK: %[[R:.*]] = tosa.reciprocal %[[N]] : (tensor<1x1xf32>) -> tensor<1x1xf32>
  // CHECK: tosa.mul %arg0, %[[R]], %{{.*}} : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  // CHECK-NOT: tosa.tile
  %0 = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %1 = stablehlo.divide %x, %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @needed
func.func @needed(%b: tensor<16xf32>) -> tensor<8x16xf32> {
  // A tile whose value is the result keeps its shape.
  // CHECK: tosa.tile
  %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %1 = stablehlo.exponential %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
