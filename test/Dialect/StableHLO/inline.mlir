// JAX's private helpers (func.call @relu, @log_softmax, ...) inline, with
// the regions of reduce.
// RUN: pipewave-opt %s --inline --symbol-dce | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NOT: call
// CHECK: stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1]
// CHECK: stablehlo.subtract
// CHECK: return
// CHECK-NOT: func.func private @helper
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = call @helper(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func private @helper(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.subtract %x, %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
