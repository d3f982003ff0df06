// RUN: pipewave-opt %s -split-input-file --pipe-insert-comm -verify-diagnostics

// expected-error@+1 {{pipe-insert-comm: '@main' calls no stage function; run pipe-outline-stages first}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
