// Gradient check of tosa.concat along the inner axis, and of a value with
// itself along the outer axis (the two slices of the cotangent add up).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: f arg 1 (4 of 4 elements) max error:
// CHECK: PASS

func.func private @f(%a: tensor<2x3xf64>, %b: tensor<2x2xf64>) -> (tensor<2x5xf64>, tensor<4x3xf64>)
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.concat %a, %b {axis = 1 : i32} : (tensor<2x3xf64>, tensor<2x2xf64>) -> tensor<2x5xf64>
  %1 = tosa.concat %a, %a {axis = 0 : i32} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<4x3xf64>
  return %0, %1 : tensor<2x5xf64>, tensor<4x3xf64>
}
