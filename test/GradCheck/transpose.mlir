// Gradient check of tosa.transpose with a permutation that is not its own
// inverse.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (24 of 24 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.transpose %x {perms = array<i32: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
  return %0 : tensor<4x2x3xf64>
}
