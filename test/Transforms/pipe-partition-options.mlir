// RUN: pipewave-opt %s -split-input-file --pipe-partition="strategy=magic" -verify-diagnostics
// RUN: not pipewave-opt %s -split-input-file --pipe-partition="strategy=balanced" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not pipewave-opt %s -split-input-file --pipe-partition="num-stages=2 entry=forward" 2>&1 | FileCheck %s --check-prefix=ENTRY

// Invalid pass options.

// ZERO: error: pipe-partition: num-stages must be at least 1, got 0
// ENTRY: error: pipe-partition: entry function '@forward' not found

// expected-error@+1 {{pipe-partition: unknown strategy 'magic'; expected auto, manual, uniform or balanced}}
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
