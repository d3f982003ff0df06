// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=gpipe microbatches=2" | FileCheck %s --check-prefix=GPIPE
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=1f1b microbatches=2" | FileCheck %s --check-prefix=1F1B
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=1f1b microbatches=4" --sched-verify | FileCheck %s --check-prefix=M4

// Two stages whose entry returns a scalar loss: a training step.

// GPIPE-LABEL: sched.program "gpipe" stages 2 microbatches 2 {
// GPIPE-NEXT:    sched.rank 0 stages [0] {
// GPIPE-NEXT:      sched.compute F stage 0 mb 0
// GPIPE-NEXT:      sched.send act stage 0 mb 0 to 1 tag 0
// GPIPE-NEXT:      sched.compute F stage 0 mb 1
// GPIPE-NEXT:      sched.send act stage 0 mb 1 to 1 tag 1
// GPIPE-NEXT:      sched.recv grad stage 0 mb 0 from 1 tag 2
// GPIPE-NEXT:      sched.compute B stage 0 mb 0
// GPIPE-NEXT:      sched.recv grad stage 0 mb 1 from 1 tag 3
// GPIPE-NEXT:      sched.compute B stage 0 mb 1
// GPIPE-NEXT:      sched.optimizer stage 0
// GPIPE-NEXT:    }
// GPIPE-NEXT:    sched.rank 1 stages [1] {
// GPIPE-NEXT:      sched.recv act stage 1 mb 0 from 0 tag 0
// GPIPE-NEXT:      sched.compute F stage 1 mb 0
// GPIPE-NEXT:      sched.recv act stage 1 mb 1 from 0 tag 1
// GPIPE-NEXT:      sched.compute F stage 1 mb 1
// GPIPE-NEXT:      sched.compute B stage 1 mb 0
// GPIPE-NEXT:      sched.send grad stage 1 mb 0 to 0 tag 2
// GPIPE-NEXT:      sched.compute B stage 1 mb 1
// GPIPE-NEXT:      sched.send grad stage 1 mb 1 to 0 tag 3
// GPIPE-NEXT:      sched.optimizer stage 1
// GPIPE-NEXT:    }
// GPIPE-NEXT:  }

// With M = S = 2 the first stage runs min(S-s, M) = 2 forwards first, the
// last stage alternates F and B from the start.
// 1F1B-LABEL: sched.program "1f1b" stages 2 microbatches 2 {
// 1F1B:         sched.rank 0 stages [0] {
// 1F1B-NEXT:      sched.compute F stage 0 mb 0
// 1F1B-NEXT:      sched.send act stage 0 mb 0 to 1 tag 0
// 1F1B-NEXT:      sched.compute F stage 0 mb 1
// 1F1B-NEXT:      sched.recv grad stage 0 mb 0 from 1 tag 2
// 1F1B-NEXT:      sched.send act stage 0 mb 1 to 1 tag 1
// 1F1B-NEXT:      sched.compute B stage 0 mb 0
// 1F1B-NEXT:      sched.recv grad stage 0 mb 1 from 1 tag 3
// 1F1B-NEXT:      sched.compute B stage 0 mb 1
// 1F1B-NEXT:      sched.optimizer stage 0
// 1F1B:         sched.rank 1 stages [1] {
// 1F1B-NEXT:      sched.recv act stage 1 mb 0 from 0 tag 0
// 1F1B-NEXT:      sched.compute F stage 1 mb 0
// 1F1B-NEXT:      sched.compute B stage 1 mb 0
// 1F1B-NEXT:      sched.send grad stage 1 mb 0 to 0 tag 2
// 1F1B-NEXT:      sched.recv act stage 1 mb 1 from 0 tag 1
// 1F1B-NEXT:      sched.compute F stage 1 mb 1
// 1F1B-NEXT:      sched.compute B stage 1 mb 1
// 1F1B-NEXT:      sched.send grad stage 1 mb 1 to 0 tag 3
// 1F1B-NEXT:      sched.optimizer stage 1

// M4: sched.program "1f1b" stages 2 microbatches 4
// M4-COUNT-8: sched.compute F
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

// -----

// No scalar loss: an inference step with forwards only, whatever the
// schedule.

// GPIPE-LABEL: sched.program "gpipe" stages 2 microbatches 2 forward_only {
// GPIPE-NOT:     sched.compute B
// GPIPE-NOT:     sched.optimizer
// GPIPE:       }
// 1F1B-LABEL: sched.program "1f1b" stages 2 microbatches 2 forward_only {
// 1F1B-NEXT:    sched.rank 0 stages [0] {
// 1F1B-NEXT:      sched.compute F stage 0 mb 0
// 1F1B-NEXT:      sched.send act stage 0 mb 0 to 1 tag 0
// 1F1B-NEXT:      sched.compute F stage 0 mb 1
// 1F1B-NEXT:      sched.send act stage 0 mb 1 to 1 tag 1
// 1F1B-NEXT:    }
// M4-LABEL: sched.program "1f1b" stages 2 microbatches 4 forward_only
func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  return %x : tensor<4x8xf32>
}
func.func private @main_stage1(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 1 : i64} {
  return %x : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = call @main_stage1(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
