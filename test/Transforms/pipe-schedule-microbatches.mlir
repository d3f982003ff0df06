// Where pipe-schedule takes the microbatch count from when its option is 0
// (the default): the count pipe-microbatch specialised the stages for, the
// entry's pipe.microbatches (written by pipe-plan), else 1.

// RUN: pipewave-opt %s -split-input-file --pipe-schedule | FileCheck %s --check-prefix=DEFAULT
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="microbatches=1" | FileCheck %s --check-prefix=OPTION
// RUN: pipewave-opt %s -split-input-file --pipe-microbatch="microbatches=4" --pipe-insert-comm --pipe-schedule="schedule=gpipe" --sched-verify | FileCheck %s --check-prefix=SPECIALISED
// RUN: not pipewave-opt %s -split-input-file --pipe-microbatch="microbatches=4" --pipe-schedule="microbatches=2" 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not pipewave-opt %s -split-input-file --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-custom.txt" 2>&1 | FileCheck %s --check-prefix=FILE

// DEFAULT: sched.program "1f1b" stages 2 microbatches 2 {
// DEFAULT: sched.program "1f1b" stages 2 microbatches 1 {
// OPTION: sched.program "1f1b" stages 2 microbatches 1 {
// OPTION: sched.program "1f1b" stages 2 microbatches 1 {
// SPECIALISED: sched.program "gpipe" stages 2 microbatches 4 {
// SPECIALISED: sched.program "gpipe" stages 2 microbatches 4 {
// MISMATCH: error: pipe-schedule: microbatches=2 but pipe-microbatch specialised the stage functions for 4 microbatches
// FILE: error: pipe-schedule: {{.*}}pipe-schedule-custom.txt: the schedule has M=4 microbatches but the entry's pipe.microbatches is 2

func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
func.func private @main_stage1(%t: tensor<4x8xf32>) -> tensor<f32> attributes {pipe.stage = 1 : i64} {
  %s = tosa.reduce_sum %t {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<f32> attributes {pipe.microbatches = 2 : i64} {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = call @main_stage1(%0) : (tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
func.func private @main_stage1(%t: tensor<4x8xf32>) -> tensor<f32> attributes {pipe.stage = 1 : i64} {
  %s = tosa.reduce_sum %t {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<f32> {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = call @main_stage1(%0) : (tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
