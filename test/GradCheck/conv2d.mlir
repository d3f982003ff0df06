// Gradient check of tosa.conv2d: input, weight and bias gradients.
//
// @f: a convolution with stride [2, 1], dilation [1, 2] and uneven padding;
// @g: padding wider than the kernel extent (windows that read only padding)
// with stride [2, 3] and a [1] bias broadcast over the channels. The weights
// are parameters; the second run checks the split backward (bwd_input then
// bwd_weight).
//
// TOSA convolutions take no f64, so the check runs in f32 (the difference
// quotient is in f64). The loss is linear in every argument, so central
// differences are exact for any step: a step of 0.5 keeps the f32 rounding
// of the loss (~1e-7 relative) small against 2h, and the tolerance is 1e-4.
// A wrong rule gives errors of order 1.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='step=0.5 tolerance=1e-4' | %gradcheck_run | FileCheck %s
// RUN: pipewave-opt %s --pipe-autodiff=split=true --test-pipe-gradcheck='step=0.5 tolerance=1e-4 split=true' | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (144 of 144 elements) max error:
// CHECK: f arg 1 (72 of 72 elements) max error:
// CHECK: f arg 2 (4 of 4 elements) max error:
// CHECK: g arg 0 (32 of 32 elements) max error:
// CHECK: g arg 1 (16 of 16 elements) max error:
// CHECK: g arg 2 (1 of 1 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x8x3x3xf32>,
                     %w: tensor<4x3x2x3xf32> {pipe.param, pipe.name = "w"},
                     %b: tensor<4xf32> {pipe.param, pipe.name = "b"}) -> tensor<2x4x4x4xf32>
    attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 0, 2, 1>, stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>} : (tensor<2x8x3x3xf32>, tensor<4x3x2x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}

func.func private @g(%x: tensor<1x4x4x2xf32>,
                     %w: tensor<2x2x2x2xf32> {pipe.param, pipe.name = "v"},
                     %b: tensor<1xf32> {pipe.param, pipe.name = "c"}) -> tensor<1x5x2x2xf32>
    attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 3, 3, 0, 1>, stride = array<i64: 2, 3>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}
