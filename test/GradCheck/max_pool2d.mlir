// Gradient check of tosa.max_pool2d: each window's cotangent goes to the
// first element (row-major kernel order) equal to its maximum.
//
// @f: a 3x2 kernel with stride [2, 2] (overlapping windows along H) and
// padding [1, 1, 0, 0]. @g: x tiled twice along W under a 1x2 kernel, so
// both elements of every window are the same element of x (a tie): the
// gradient of x must be dy once (a rule that gave every tied maximum the
// cotangent would give 2 dy). Random inputs are distinct, so @f has no ties
// and the step (1e-6) does not cross a kink.
//
// The CPU lowering of tosa.max_pool2d takes no f64, so the check runs in f32
// with the default step (1e-6) and tolerance (1e-6): the pool only selects
// elements, so the loss has no rounding beyond the f64 sum, and the quotient
// uses the step as rounded to f32.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (180 of 180 elements) max error:
// CHECK: g arg 0 (6 of 6 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x5x6x3xf32>) -> tensor<2x3x3x3xf32>
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 0, 0>} : (tensor<2x5x6x3xf32>) -> tensor<2x3x3x3xf32>
  return %0 : tensor<2x3x3x3xf32>
}

func.func private @g(%x: tensor<1x3x1x2xf32>) -> tensor<1x3x1x2xf32>
    attributes {pipe.stage = 0 : i64} {
  %m = tosa.const_shape {values = dense<[1, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t = tosa.tile %x, %m : (tensor<1x3x1x2xf32>, !tosa.shape<4>) -> tensor<1x3x2x2xf32>
  %0 = tosa.max_pool2d %t {kernel = array<i64: 1, 2>, stride = array<i64: 1, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x3x2x2xf32>) -> tensor<1x3x1x2xf32>
  return %0 : tensor<1x3x1x2xf32>
}
