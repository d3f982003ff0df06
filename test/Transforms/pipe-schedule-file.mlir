// schedule=file reads an action list (docs/schedule-format.md).

// RUN: pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-custom.txt" --sched-verify 2>&1 | FileCheck %s --check-prefix=CUSTOM
// RUN: pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-custom.txt microbatches=4" --sched-verify 2>&1 | FileCheck %s --check-prefix=CUSTOM

// The file's order with the sends and receives added; the name comes from
// the header.
// CUSTOM-LABEL: sched.program "custom" stages 2 microbatches 4 {
// CUSTOM:         sched.rank 0 stages [0] {
// CUSTOM-NEXT:      sched.compute F stage 0 mb 0
// CUSTOM:           sched.compute F stage 0 mb 1
// CUSTOM:           sched.compute F stage 0 mb 2
// CUSTOM:           sched.compute B stage 0 mb 0
// CUSTOM:           sched.compute F stage 0 mb 3
// CUSTOM:           sched.compute B stage 0 mb 1
// CUSTOM:           sched.optimizer stage 0
// CUSTOM:         sched.rank 1 stages [1] {

// Errors: the file's S, M and kind of step must match the module.
// RUN: not pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-custom.txt microbatches=2" 2>&1 | FileCheck %s --check-prefix=MOPT
// MOPT: error: pipe-schedule: {{.*}}pipe-schedule-custom.txt: the schedule has M=4 microbatches but the option microbatches=2

// RUN: not pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-s3.txt" 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: pipe-schedule: {{.*}}pipe-schedule-s3.txt: the schedule has S=3 stages but '@main' calls 2 stage functions

// RUN: not pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-fwd.txt" 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: error: pipe-schedule: {{.*}}pipe-schedule-fwd.txt: the schedule is forward-only but '@main' returns a loss (a training step)

// Parse errors point into the file: PATH:LINE:COLUMN.
// RUN: not pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-bad-action.txt" 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: pipe-schedule: {{.*}}pipe-schedule-bad-action.txt:3:8: unknown action '1X0'

// RUN: not pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/no-such-file.txt" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: pipe-schedule: cannot read schedule file '{{.*}}no-such-file.txt':

// The batch of 4 must split into the file's microbatches.
// RUN: not pipewave-opt %s --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-m3.txt" 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: error: pipe-schedule: microbatches=3 does not divide the batch size 4

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

