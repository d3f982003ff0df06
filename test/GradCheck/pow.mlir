// Gradient check of tosa.pow with a broadcast exponent: da = dy * b * a^(b-1),
// db = dy * y * log(a) (inputs in [0.5, 2)).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='lo=0.5 hi=2.0' | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: f arg 1 (3 of 3 elements) max error:
// CHECK: PASS

func.func private @f(%a: tensor<2x3xf64>, %b: tensor<1x3xf64>) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.pow %a, %b : (tensor<2x3xf64>, tensor<1x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
