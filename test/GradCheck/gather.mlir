// Gradient check of tosa.gather (an embedding lookup): the table's gradient is
// a scatter-add, built as a one-hot matmul. Indices repeat (2 twice in batch 0,
// 1 twice in batch 1) so their rows must accumulate; some rows are never read
// (zero gradient).
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (30 of 30 elements) max error:
// CHECK: PASS

func.func private @f(%values: tensor<2x5x3xf64>) -> tensor<2x4x3xf64>
    attributes {pipe.stage = 0 : i64} {
  %idx = "tosa.const"() <{values = dense<[[0, 2, 2, 4], [1, 1, 3, 0]]> : tensor<2x4xi32>}> : () -> tensor<2x4xi32>
  %0 = tosa.gather %values, %idx : (tensor<2x5x3xf64>, tensor<2x4xi32>) -> tensor<2x4x3xf64>
  return %0 : tensor<2x4x3xf64>
}
