// Gradient check of tosa.select with a broadcast false operand; the condition
// is a data input (pipe.name), which gets no gradient.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 1 (6 of 6 elements) max error:
// CHECK: f arg 2 (3 of 3 elements) max error:
// CHECK: PASS

func.func private @f(%c: tensor<2x3xi1> {pipe.name = "c"}, %a: tensor<2x3xf64>, %b: tensor<1x3xf64>) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf64>, tensor<1x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
