// Gradient check of tosa.slice: the cotangent is zero-padded back to the input
// shape.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (20 of 20 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<4x5xf64>) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %start = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.slice %x, %start, %size : (tensor<4x5xf64>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
