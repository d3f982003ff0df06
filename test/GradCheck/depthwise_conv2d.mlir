// Gradient check of tosa.depthwise_conv2d with a channel multiplier of 2,
// stride [1, 2], dilation [2, 1] and uneven padding: input, weight and bias
// gradients.
//
// TOSA convolutions take no f64, so the check runs in f32 with a step of 0.5
// and a tolerance of 1e-4 (the loss is linear in every argument; see
// conv2d.mlir).
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='step=0.5 tolerance=1e-4' | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (180 of 180 elements) max error:
// CHECK: f arg 1 (36 of 36 elements) max error:
// CHECK: f arg 2 (6 of 6 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x6x5x3xf32>,
                     %w: tensor<3x2x3x2xf32> {pipe.param, pipe.name = "w"},
                     %b: tensor<6xf32> {pipe.param, pipe.name = "b"}) -> tensor<2x4x3x6xf32>
    attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 0, 1>, stride = array<i64: 1, 2>, dilation = array<i64: 2, 1>} : (tensor<2x6x5x3xf32>, tensor<3x2x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x3x6xf32>
  return %0 : tensor<2x4x3x6xf32>
}
