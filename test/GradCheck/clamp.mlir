// Gradient check of tosa.clamp: the gradient passes strictly inside the bounds;
// a ReLU (max_val at the end of the type's range) tests only the lower bound.
// No input lies within the step of a bound.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (12 of 12 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.clamp %x {min_val = -5.000000e-01 : f64, max_val = 5.000000e-01 : f64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %1 = tosa.clamp %x {min_val = 0.000000e+00 : f64, max_val = 1.7976931348623157E+308 : f64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %0, %1 : tensor<3x4xf64>, tensor<3x4xf64>
}
