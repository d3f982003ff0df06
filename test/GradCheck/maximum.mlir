// Gradient check of tosa.maximum with broadcasting, and of its tie rule: on a
// tie the gradient is split evenly between the operands, which is also what
// central differences give (the mean of the two one-sided derivatives).
//
// @f: maximum(a, b) with b broadcast, and maximum(a, a). @g: maximum(2x,
// x*x + x), a tie at x = 1 between branches of different slopes (2 and 3):
// the second run sets every input to 1, so the gradient must be 2.5 (the
// first branch alone would give 2, the second 3). In that run @f has ties
// everywhere too.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='lo=1.0 hi=1.0' | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (6 of 6 elements) max error:
// CHECK: f arg 1 (3 of 3 elements) max error:
// CHECK: g arg 0 (4 of 4 elements) max error:
// CHECK: PASS

func.func private @f(%a: tensor<2x3xf64>, %b: tensor<1x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>)
    attributes {pipe.stage = 0 : i64} {
  %0 = tosa.maximum %a, %b : (tensor<2x3xf64>, tensor<1x3xf64>) -> tensor<2x3xf64>
  %1 = tosa.maximum %a, %a : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
}

func.func private @g(%x: tensor<4xf64>) -> tensor<4xf64>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %u = tosa.add %x, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %sq = tosa.mul %x, %x, %shift : (tensor<4xf64>, tensor<4xf64>, tensor<1xi8>) -> tensor<4xf64>
  %v = tosa.add %sq, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %0 = tosa.maximum %u, %v : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
