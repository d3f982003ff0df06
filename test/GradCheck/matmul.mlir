// Gradient check of tosa.matmul with a batch of 2: da = dy @ b^T, db = a^T @
// dy. b is a parameter; the second run checks the split backward (bwd_input
// computes da, bwd_weight db).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s
// RUN: pipewave-opt %s --pipe-autodiff=split=true --test-pipe-gradcheck=split=true | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (24 of 24 elements) max error:
// CHECK: f arg 1 (40 of 40 elements) max error:
// CHECK: PASS

func.func private @f(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64> {pipe.param, pipe.name = "b"}) -> tensor<2x3x5xf64>
    attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf64>}> : () -> tensor<1xf64>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x3x4xf64>, tensor<2x4x5xf64>, tensor<1xf64>, tensor<1xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}
