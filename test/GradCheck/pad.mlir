// Gradient check of tosa.pad: the input gets the slice of the cotangent; the
// padding value (an activation here) the sum over the padded elements.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: f arg 1 (1 of 1 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3xf64>, %p: tensor<1xf64>) -> tensor<3x6xf64>
    attributes {pipe.stage = 0 : i64} {
  %padding = tosa.const_shape {values = dense<[1, 0, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %0 = tosa.pad %x, %padding, %p : (tensor<2x3xf64>, !tosa.shape<4>, tensor<1xf64>) -> tensor<3x6xf64>
  return %0 : tensor<3x6xf64>
}
