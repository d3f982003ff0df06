// Gradient check of tosa.reduce_sum over an inner and the outer axis: dx =
// tile(dy).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (24 of 24 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3x4xf64>) -> (tensor<2x1x4xf64>, tensor<1x3x4xf64>)
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>
  %1 = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<2x3x4xf64>) -> tensor<1x3x4xf64>
  return %0, %1 : tensor<2x1x4xf64>, tensor<1x3x4xf64>
}
