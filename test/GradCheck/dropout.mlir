// Gradient check of pipe.dropout (training-mode Dropout). The counter is a
// fixed integer input of the check, so the mask is fixed and the function
// is linear in x: the backward (the same dropout of the cotangent, its mask
// recomputed from the counter) must match central differences exactly up
// to rounding. pipe-lower-dropout lowers it for the run.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (24 of 24 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<4x6xf64>, %c: tensor<4x3xi64>) -> tensor<4x6xf64>
    attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<4x6xf64>) -> tensor<4x6xf64>
  %y = pipe.dropout %t, %c ratio 0.5 stream 1 : tensor<4x6xf64>, tensor<4x3xi64>
  %z = tosa.tanh %y : (tensor<4x6xf64>) -> tensor<4x6xf64>
  return %z : tensor<4x6xf64>
}
