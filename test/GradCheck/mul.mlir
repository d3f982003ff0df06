// Gradient check of tosa.mul with broadcasting, and a square (both operands the
// same value: the two contributions accumulate).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: f arg 1 (3 of 3 elements) max error:
// CHECK: PASS

func.func private @f(%a: tensor<2x3xf64>, %b: tensor<1x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>)
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<2x3xf64>, tensor<1x3xf64>, tensor<1xi8>) -> tensor<2x3xf64>
  %1 = tosa.mul %a, %a, %shift : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<1xi8>) -> tensor<2x3xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
}
