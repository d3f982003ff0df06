// RUN: not pipewave-opt %s --pipe-recompute=policy=magic 2>&1 | FileCheck %s
// RUN: not pipewave-compile %s --stages 1 --recompute=magic --emit=pipe -o - 2>&1 | FileCheck %s --check-prefix=COMPILE

// An unknown policy is rejected by the option parser; the pass never runs.

// CHECK: for the --policy option: Cannot find option named 'magic'!
// CHECK-NOT: pipe-recompute:
// COMPILE: pipewave-compile: error: --recompute=magic: expected none, full or selective
module {
  func.func private @main_stage0(%x: tensor<4xf32>) -> tensor<4xf32>
      attributes {pipe.stage = 0 : i64} {
    %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
    return %t : tensor<4xf32>
  }
}
