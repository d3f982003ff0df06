// Gradient check of tosa.avg_pool2d with a 3x3 kernel, stride [2, 1] and
// padding on every side: TOSA divides by the number of window elements
// inside the input, so border windows have smaller divisors.
//
// TOSA pools take no f64 accumulator, so the check runs in f32 with a step
// of 0.5 and a tolerance of 1e-4 (the pool is linear; see conv2d.mlir).
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='step=0.5 tolerance=1e-4' | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (60 of 60 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x5x6x1xf32>) -> tensor<2x3x6x1xf32>
    attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, stride = array<i64: 2, 1>, pad = array<i64: 1, 1, 1, 1>} : (tensor<2x5x6x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x6x1xf32>
  return %0 : tensor<2x3x6x1xf32>
}
