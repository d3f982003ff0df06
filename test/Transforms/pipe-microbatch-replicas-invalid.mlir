// RUN: pipewave-opt %s -split-input-file --pipe-microbatch="replicas=3" -verify-diagnostics
// RUN: not pipewave-opt %s --pipe-microbatch="replicas=0" 2>&1 | FileCheck %s --check-prefix=ZERO

// replicas: each replica takes 1/replicas of the batch, in `microbatches`
// parts; the product must divide every data input's batch.

// ZERO: error: pipe-microbatch: replicas must be at least 1, got 0

// expected-error@+1 {{pipe-microbatch: replicas=3 x microbatches=1 = 3 parts do not divide the batch size 8 of data input 'x' (each replica takes 1/3 of the batch, in 1 microbatches)}}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> attributes {pipe.stage = 0 : i64} {
  %0 = tosa.tanh %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
