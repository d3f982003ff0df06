// Gradient check of pipe.recompute: the body is not stashed; the backward
// recomputes tanh and exp from the region's input x. The forward and backward
// are checked as usual.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s
// RUN: pipewave-opt %s --pipe-autodiff=split=true --test-pipe-gradcheck=split=true | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: f arg 1 (3 of 3 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3xf64>, %w: tensor<1x3xf64> {pipe.param, pipe.name = "w"}) -> tensor<2x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = pipe.recompute -> tensor<2x3xf64> {
    %t = tosa.tanh %x : (tensor<2x3xf64>) -> tensor<2x3xf64>
    %e = tosa.exp %t : (tensor<2x3xf64>) -> tensor<2x3xf64>
    pipe.yield %e : tensor<2x3xf64>
  }
  %0 = tosa.mul %r, %w, %shift : (tensor<2x3xf64>, tensor<1x3xf64>, tensor<1xi8>) -> tensor<2x3xf64>
  %1 = tosa.sigmoid %0 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %1 : tensor<2x3xf64>
}
