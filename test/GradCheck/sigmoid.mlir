// Gradient check of tosa.sigmoid: dx = dy * y * (1 - y).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3xf64>) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.sigmoid %x : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
