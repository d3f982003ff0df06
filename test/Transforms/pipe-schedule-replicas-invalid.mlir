// pipe-schedule{replicas=R} errors, one RUN line each, on a 2-stage training
// step with a batch of 8.

// RUN: not pipewave-opt %s --pipe-schedule="replicas=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: pipe-schedule: replicas must be at least 1, got -1

// R x M parts must divide the batch.
// RUN: not pipewave-opt %s --pipe-schedule="microbatches=2 replicas=3" 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: error: pipe-schedule: microbatches=2 x replicas=3 = 6 parts do not divide the batch size 8 (dimension 0 of data input 'x')

// The stage functions compute one microbatch of one replica.
// RUN: not pipewave-opt %s --pipe-microbatch="microbatches=4" --pipe-schedule="microbatches=4 replicas=2" 2>&1 | FileCheck %s --check-prefix=SPECIALISED
// SPECIALISED: error: pipe-schedule: microbatches=4 with replicas=2 needs the stage functions specialised for 8 microbatches (each replica takes 1/2 of the batch), but pipe-microbatch specialised them for 4
// RUN: not pipewave-opt %s --pipe-microbatch="microbatches=2" --pipe-schedule="replicas=4" 2>&1 | FileCheck %s --check-prefix=INDIVISIBLE
// INDIVISIBLE: error: pipe-schedule: pipe-microbatch specialised the stage functions for 2 microbatches, which replicas=4 does not divide (the stage functions compute one microbatch of one replica)

// auto searches one pipeline.
// RUN: not pipewave-opt %s --pipe-schedule="schedule=auto replicas=2" 2>&1 | FileCheck %s --check-prefix=AUTO
// AUTO: error: pipe-schedule: schedule=auto searches a single pipeline and cannot replicate it (replicas=2); choose a schedule

// An action list that has replicas of its own is not copied again.
// RUN: not pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-replicated.txt replicas=2" 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: error: pipe-schedule: the schedule already replicates stage 0 on ranks [0, 2]; replicas=2 copies a pipeline without replicas

func.func private @main_stage0(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
func.func private @main_stage1(%t: tensor<8x4xf32>) -> tensor<f32> attributes {pipe.stage = 1 : i64} {
  %s = tosa.reduce_sum %t {axis = 0 : i32} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x4xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<f32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = call @main_stage1(%0) : (tensor<8x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
