// pipe-schedule and the entry's pipe.replicas from pipe-plan: it applies
// when the `replicas` option is 0 (the default) and is refused when the
// pipeline cannot be copied as planned.

// RUN: pipewave-opt %s -split-input-file -verify-diagnostics --pipe-schedule="schedule=gpipe"

// The plan replicates the stages unevenly.
func.func private @main_stage0(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
func.func private @main_stage1(%t: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {pipe.stage = 1 : i64} {
  %u = tosa.tanh %t : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %u : tensor<8x4xf32>
}
// expected-error@+1 {{pipe-schedule: the entry's pipe.replicas = [4, 2] replicates the stages unevenly; pipe-schedule copies the whole pipeline, so every stage needs the same count (set replicas=N to choose one)}}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> attributes {pipe.replicas = array<i64: 4, 2>} {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = call @main_stage1(%0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// The plan was made for another stage count.
func.func private @main_stage0(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
// expected-error@+1 {{pipe-schedule: the entry's pipe.replicas = [2, 2, 2] has 3 entries but '@main' calls 1 stage functions; set replicas=N to choose the replica count}}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> attributes {pipe.replicas = array<i64: 2, 2, 2>} {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// The planned microbatches and replicas need the stage functions for 4
// microbatches, not the 2 that pipe-microbatch made (as if it had run with
// the plan's pipe.microbatches alone).
func.func private @main_stage0(%x: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}
// expected-error@+1 {{pipe-schedule: the plan (pipe.microbatches = 2, pipe.replicas of 2) needs the stage functions specialised for 4 microbatches (2 per replica x 2 replicas), but pipe-microbatch specialised them for 2; run pipe-microbatch{microbatches=4}, or set microbatches and replicas}}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> attributes {pipe.microbatches = 2 : i64, pipe.replicas = array<i64: 2>} {
  %s = tensor.extract_slice %x[0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
  %0 = call @main_stage0(%s) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.insert_slice %0 into %x[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
