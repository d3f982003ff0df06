// Gradient check of tosa.abs: dx = dy * sign(x), with sign(0) = 0 (the
// second run sets every input to 0; central differences give 0 there too).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='lo=0.0 hi=0.0' | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3xf64>) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.abs %x : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
