// Gradient check of tosa.const has no gradient; the backward rematerialises the
// constants it reads instead of stashing them.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3xf64>) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<[[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]]> : tensor<2x3xf64>}> : () -> tensor<2x3xf64>
  %d = "tosa.const"() <{values = dense<0.75> : tensor<1x1xf64>}> : () -> tensor<1x1xf64>
  %0 = tosa.mul %x, %c, %shift : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<1xi8>) -> tensor<2x3xf64>
  %1 = tosa.add %0, %d : (tensor<2x3xf64>, tensor<1x1xf64>) -> tensor<2x3xf64>
  %2 = tosa.tanh %1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
}
