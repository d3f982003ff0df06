// Gradient check of tosa.reshape: the cotangent is reshaped back.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (24 of 24 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3x4xf64>) -> (tensor<6x4xf64>, tensor<4x6xf64>)
    attributes {pipe.stage = 0 : i64} {
  %s0 = tosa.const_shape {values = dense<[6, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s1 = tosa.const_shape {values = dense<[4, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %s0 : (tensor<2x3x4xf64>, !tosa.shape<2>) -> tensor<6x4xf64>
  %1 = tosa.reshape %x, %s1 : (tensor<2x3x4xf64>, !tosa.shape<2>) -> tensor<4x6xf64>
  %2 = tosa.tanh %1 : (tensor<4x6xf64>) -> tensor<4x6xf64>
  return %0, %2 : tensor<6x4xf64>, tensor<4x6xf64>
}
