// Gradient check of tosa.add with broadcasting on both sides: the cotangent is
// summed over the broadcast dimensions of each operand.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: f arg 1 (3 of 3 elements) max error:
// CHECK: f arg 2 (2 of 2 elements) max error:
// CHECK: PASS

func.func private @f(%a: tensor<2x3xf64>, %b: tensor<1x3xf64>, %c: tensor<2x1xf64>) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.add %a, %b : (tensor<2x3xf64>, tensor<1x3xf64>) -> tensor<2x3xf64>
  %1 = tosa.add %c, %0 : (tensor<2x1xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %1 : tensor<2x3xf64>
}
