// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=1f1b microbatches=3" -verify-diagnostics
// RUN: not pipewave-opt %s -split-input-file --pipe-schedule="schedule=zigzag microbatches=2" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pipewave-opt %s -split-input-file --pipe-schedule="schedule=1f1b microbatches=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// UNKNOWN: error: pipe-schedule: unknown schedule 'zigzag'; expected gpipe, 1f1b, interleaved, hanayo, zb-h1, zb-v, file or auto
// NEGATIVE: error: pipe-schedule: microbatches must be at least 1, got -1

// expected-error@+1 {{pipe-schedule: '@main' calls no stage function; run pipe-partition and pipe-outline-stages first}}
func.func @main(%x: tensor<6x8xf32> {pipe.name = "x"}) -> tensor<6x8xf32> {
  %a = tosa.tanh %x : (tensor<6x8xf32>) -> tensor<6x8xf32>
  return %a : tensor<6x8xf32>
}

// -----

func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  return %x : tensor<4x8xf32>
}
// expected-error@+1 {{pipe-schedule: microbatches=3 does not divide the batch size 4 (dimension 0 of data input 'x')}}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func private @main_stage0(%x: tensor<?x8xf32>) -> tensor<?x8xf32> attributes {pipe.stage = 0 : i64} {
  return %x : tensor<?x8xf32>
}
// expected-error@+1 {{pipe-schedule: data input 'x' needs a static batch dimension 0 to be split into microbatches, got 'tensor<?x8xf32>'}}
func.func @main(%x: tensor<?x8xf32> {pipe.name = "x"}) -> tensor<?x8xf32> {
  %0 = call @main_stage0(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func private @main_stage1(%x: tensor<6x8xf32>) -> tensor<6x8xf32> attributes {pipe.stage = 1 : i64} {
  return %x : tensor<6x8xf32>
}
func.func @main(%x: tensor<6x8xf32> {pipe.name = "x"}) -> tensor<6x8xf32> {
  // expected-error@+1 {{pipe-schedule: expected a call of stage 0, found stage 1}}
  %0 = call @main_stage1(%x) : (tensor<6x8xf32>) -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}
