// reduce: one TOSA reduction per dimension, a reshape that drops them, the
// init value applied unless it is the operation's identity.
// RUN: pipewave-opt %s --stablehlo-to-tosa | FileCheck %s

// CHECK-LABEL: func.func @sum
func.func @sum(%x: tensor<8x2xf32>) -> tensor<f32> {
  // CHECK: %[[A:.*]] = tosa.reduce_sum %arg0 {axis = 0 : i32} : (tensor<8x2xf32>) -> tensor<1x2xf32>
  // CHECK: %[[B:.*]] = tosa.reduce_sum %[[A]] {axis = 1 : i32} : (tensor<1x2xf32>) -> tensor<1x1xf32>
  // CHECK: %[[R:.*]] = tosa.reshape %[[B]], %{{.*}} -> tensor<f32>
  // CHECK-NEXT: return %[[R]]
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @max_min
func.func @max_min(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: tosa.reduce_max %arg0 {axis = 1 : i32}
  // CHECK: tosa.reduce_min %arg0 {axis = 1 : i32}
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.reduce(%x init: %inf) applies stablehlo.minimum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @and_or
func.func @and_or(%x: tensor<4x3xi1>) -> (tensor<4xi1>, tensor<4xi1>) {
  // CHECK: tosa.reduce_all %arg0 {axis = 1 : i32}
  // CHECK: tosa.reduce_any %arg0 {axis = 1 : i32}
  %t = stablehlo.constant dense<true> : tensor<i1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %0 = stablehlo.reduce(%x init: %t) applies stablehlo.and across dimensions = [1] : (tensor<4x3xi1>, tensor<i1>) -> tensor<4xi1>
  %1 = stablehlo.reduce(%x init: %f) applies stablehlo.or across dimensions = [1] : (tensor<4x3xi1>, tensor<i1>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @init
func.func @init(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  // An init value that is not the identity is added to the sum.
  // CHECK: %[[S:.*]] = tosa.reduce_sum %arg0 {axis = 1 : i32}
  // CHECK: %[[R:.*]] = tosa.reshape %[[S]], %{{.*}} -> tensor<4xf32>
  // CHECK: %[[Z:.*]] = tosa.reshape %arg1, %{{.*}} -> tensor<1xf32>
  // CHECK: tosa.add %[[R]], %[[Z]]
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @reducer_body
func.func @reducer_body(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  // The long form with a one-operation body converts the same way.
  // CHECK: tosa.reduce_max %arg0 {axis = 1 : i32}
  %0 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  return %0 : tensor<4xf32>
}
