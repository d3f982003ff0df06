// Gradient check of tosa.reverse along each axis.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (12 of 12 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.reverse %x {axis = 0 : i32} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %1 = tosa.reverse %x {axis = 1 : i32} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %2 = tosa.tanh %1 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %0, %2 : tensor<3x4xf64>, tensor<3x4xf64>
}
