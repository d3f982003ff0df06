// RUN: pipewave-opt %s -split-input-file --pipe-partition="num-stages=2 strategy=balanced" -verify-diagnostics

// User-facing errors of pipe-partition with num-stages=2 strategy=balanced;
// errors of other options are in pipe-partition-options.mlir and
// pipe-partition-manual-invalid.mlir.

// expected-error@+1 {{pipe-partition: entry function '@main' not found (set the pass option entry=NAME)}}
module {
  func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

module {
  // expected-error@+1 {{pipe-partition: entry function '@main' has no body}}
  func.func private @main(%x: tensor<4xf32>) -> tensor<4xf32>
}

// -----

// An op without a cost rule is an error, not a zero.
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{pipe-partition: no cost rule for 'math.sqrt'; strategy=balanced needs the cost of every operation}}
  %b = math.sqrt %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// expected-error@+1 {{pipe-partition: cannot cut 1 operation(s) into 2 non-empty stages}}
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{pipe-partition: strategy=balanced ignores pipe.split markers; use strategy=manual or remove them}}
  pipe.split
  %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
