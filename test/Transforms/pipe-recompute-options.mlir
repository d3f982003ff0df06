// RUN: pipewave-opt %s --pipe-recompute=policy=magic -verify-diagnostics

// An unknown policy is an error on the module; nothing is rewritten.

// expected-error@+1 {{pipe-recompute: unknown policy 'magic'; expected none, full or selective}}
module {
  func.func private @main_stage0(%x: tensor<4xf32>) -> tensor<4xf32>
      attributes {pipe.stage = 0 : i64} {
    %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
    return %t : tensor<4xf32>
  }
}
