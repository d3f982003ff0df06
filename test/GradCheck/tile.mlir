// Gradient check of tosa.tile: the cotangent is summed over the tiles.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3xf64>) -> tensor<4x9xf64>
    attributes {pipe.stage = 0 : i64} {
  %m = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.tile %x, %m : (tensor<2x3xf64>, !tosa.shape<2>) -> tensor<4x9xf64>
  return %0 : tensor<4x9xf64>
}
