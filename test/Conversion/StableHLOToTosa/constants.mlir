// constant and iota become tosa.const.
// RUN: pipewave-opt %s --stablehlo-to-tosa | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<f32>, tensor<2xi32>, tensor<2x3xi32>, tensor<3x2xf32>) {
  // CHECK-DAG: "tosa.const"() <{values = dense<0xFF800000> : tensor<f32>}>
  // CHECK-DAG: "tosa.const"() <{values = dense<[1, 2]> : tensor<2xi32>}>
  // An iota counts along its dimension.
  // CHECK-DAG: "tosa.const"() <{values = dense<{{\[}}[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>}>
  // CHECK-DAG: "tosa.const"() <{values = dense<{{\[}}[0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00]]> : tensor<3x2xf32>}>
  // CHECK-NOT: stablehlo
  %0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %1 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %2 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %3 = stablehlo.iota dim = 0 : tensor<3x2xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<2xi32>, tensor<2x3xi32>, tensor<3x2xf32>
}
