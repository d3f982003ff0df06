// pipe-schedule{replicas=R}: R data-parallel copies of the pipeline. Rank
// k*P + r runs rank r's program with its messages going to replica k's
// ranks, and every stage all-reduces its gradients among its replicas right
// before its optimizer step. sched-verify accepts every result.

// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=gpipe microbatches=2 replicas=2" --sched-verify | FileCheck %s --check-prefix=GPIPE
// RUN: pipewave-opt %s -split-input-file --pipe-microbatch="microbatches=4" --pipe-insert-comm --pipe-schedule="schedule=1f1b replicas=2" --sched-verify | FileCheck %s --check-prefix=SPECIALISED
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=gpipe microbatches=1" --sched-verify | FileCheck %s --check-prefix=PLAN
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=interleaved chunks=2 microbatches=2 replicas=4" --sched-verify | FileCheck %s --check-prefix=INTERLEAVED
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=file file=%S/Inputs/pipe-schedule-custom.txt replicas=2" --sched-verify | FileCheck %s --check-prefix=FILE
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=gpipe microbatches=1 replicas=2 forward-only=true" --sched-verify | FileCheck %s --check-prefix=INFERENCE
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=1f1b microbatches=2 replicas=2" --sched-export=file=- -o /dev/null | FileCheck %s --check-prefix=EXPORT
// RUN: pipewave-opt %s -split-input-file --pipe-schedule="schedule=1f1b microbatches=2 replicas=2" --sched-simulate="device=cpu report=-" -o /dev/null | FileCheck %s --check-prefix=SIM

// Two replicas of GPipe over 2 stages: ranks 0 and 1 are replica 0, ranks 2
// and 3 replica 1.
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
// GPIPE-NEXT:      sched.allreduce stage 0 ranks [0, 2]
// GPIPE-NEXT:      sched.optimizer stage 0
// GPIPE-NEXT:    }
// GPIPE-NEXT:    sched.rank 1 stages [1] {
// GPIPE-NEXT:      sched.recv act stage 1 mb 0 from 0 tag 0
// GPIPE:           sched.send grad stage 1 mb 1 to 0 tag 3
// GPIPE-NEXT:      sched.allreduce stage 1 ranks [1, 3]
// GPIPE-NEXT:      sched.optimizer stage 1
// GPIPE-NEXT:    }
// GPIPE-NEXT:    sched.rank 2 stages [0] {
// GPIPE-NEXT:      sched.compute F stage 0 mb 0
// GPIPE-NEXT:      sched.send act stage 0 mb 0 to 3 tag 0
// GPIPE-NEXT:      sched.compute F stage 0 mb 1
// GPIPE-NEXT:      sched.send act stage 0 mb 1 to 3 tag 1
// GPIPE-NEXT:      sched.recv grad stage 0 mb 0 from 3 tag 2
// GPIPE-NEXT:      sched.compute B stage 0 mb 0
// GPIPE-NEXT:      sched.recv grad stage 0 mb 1 from 3 tag 3
// GPIPE-NEXT:      sched.compute B stage 0 mb 1
// GPIPE-NEXT:      sched.allreduce stage 0 ranks [0, 2]
// GPIPE-NEXT:      sched.optimizer stage 0
// GPIPE-NEXT:    }
// GPIPE-NEXT:    sched.rank 3 stages [1] {
// GPIPE-NEXT:      sched.recv act stage 1 mb 0 from 2 tag 0
// GPIPE:           sched.send grad stage 1 mb 1 to 2 tag 3
// GPIPE-NEXT:      sched.allreduce stage 1 ranks [1, 3]
// GPIPE-NEXT:      sched.optimizer stage 1
// GPIPE-NEXT:    }
// GPIPE-NEXT:  }
// The option wins over the entry's pipe.replicas.
// GPIPE-LABEL: sched.program "gpipe" stages 2 microbatches 2 {
// GPIPE:         sched.rank 3 stages [1] {
// GPIPE-NOT:     sched.rank 4

// Without the option, the entry's pipe.replicas (pipe-plan) applies when it
// is the same for every stage; without it, one replica.
// PLAN-LABEL: sched.program "gpipe" stages 2 microbatches 1 {
// PLAN-NOT:     sched.allreduce
// PLAN:         sched.rank 1 stages [1] {
// PLAN-NOT:     sched.rank 2
// PLAN-LABEL: sched.program "gpipe" stages 2 microbatches 1 {
// PLAN:         sched.rank 6 stages [0] {
// PLAN:           sched.send act stage 0 mb 0 to 7 tag 0
// PLAN:           sched.allreduce stage 0 ranks [0, 2, 4, 6]
// PLAN-NEXT:      sched.optimizer stage 0
// PLAN:         sched.rank 7 stages [1] {
// PLAN:           sched.recv act stage 1 mb 0 from 6 tag 0
// PLAN:           sched.allreduce stage 1 ranks [1, 3, 5, 7]
// PLAN-NOT:     sched.rank 8

// After pipe-microbatch{microbatches=4} with 2 replicas, each replica runs
// 2 microbatches (the stage functions compute a quarter of the batch).
// SPECIALISED-LABEL: sched.program "1f1b" stages 2 microbatches 2 {
// SPECIALISED:         sched.rank 2 stages [0] {
// SPECIALISED:           sched.send act stage 0 mb 0 to 3 tag 0
// SPECIALISED:           sched.allreduce stage 0 ranks [0, 2]
// SPECIALISED-NEXT:      sched.optimizer stage 0
// SPECIALISED:         sched.rank 3 stages [1] {
// SPECIALISED:           sched.allreduce stage 1 ranks [1, 3]
// SPECIALISED-NEXT:      sched.optimizer stage 1
// SPECIALISED-NEXT:    }
// SPECIALISED-NEXT:  }
// SPECIALISED-LABEL: sched.program "1f1b" stages 2 microbatches 2 {
// SPECIALISED:         sched.allreduce stage 1 ranks [1, 3]

// Interleaved: one rank holds both stages, so each replica is one rank; the
// two all-reduces come in the same order on every replica.
// INTERLEAVED-LABEL: sched.program "interleaved" stages 2 microbatches 2 {
// INTERLEAVED:         sched.rank 0 stages [0, 1] {
// INTERLEAVED:           sched.allreduce stage 0 ranks [0, 1, 2, 3]
// INTERLEAVED-NEXT:      sched.optimizer stage 0
// INTERLEAVED-NEXT:      sched.allreduce stage 1 ranks [0, 1, 2, 3]
// INTERLEAVED-NEXT:      sched.optimizer stage 1
// INTERLEAVED:         sched.rank 3 stages [0, 1] {
// INTERLEAVED-NOT:     sched.rank 4

// An action-list file is replicated like a generated schedule.
// FILE-LABEL: sched.program "custom" stages 2 microbatches 4 {
// FILE:         sched.rank 3 stages [1] {
// FILE:           sched.recv act stage 1 mb 0 from 2 tag 0
// FILE:           sched.allreduce stage 1 ranks [1, 3]
// FILE-NEXT:      sched.optimizer stage 1

// Inference steps are replicated too, without all-reduces.
// INFERENCE-LABEL: sched.program "gpipe" stages 2 microbatches 1 forward_only {
// INFERENCE:         sched.rank 3 stages [1] {
// INFERENCE-NEXT:      sched.recv act stage 1 mb 0 from 2 tag 0
// INFERENCE-NEXT:      sched.compute F stage 1 mb 0
// INFERENCE-NEXT:    }
// INFERENCE-NOT:     sched.allreduce

// The action list of a replicated program names the replicas' ranks.
// EXPORT:      # pipewave schedule S=2 M=2 name=1f1b
// EXPORT-NEXT: stages 0: 0
// EXPORT-NEXT: stages 1: 1
// EXPORT-NEXT: stages 2: 0
// EXPORT-NEXT: stages 3: 1
// EXPORT-NEXT: 0: 0F0 0F1 0B0 0B1 AR0 OPT0
// EXPORT-NEXT: 1: 1F0 1B0 1F1 1B1 AR1 OPT1
// EXPORT-NEXT: 2: 0F0 0F1 0B0 0B1 AR0 OPT0
// EXPORT-NEXT: 3: 1F0 1B0 1F1 1B1 AR1 OPT1

// sched-simulate runs a replicated program as it is, one rank per device,
// each microbatch a quarter of the batch: stage 0 stashes its 2x4 input and
// the tanh (64 bytes), 2 microbatches at its peak.
// SIM:      sched-simulate: "1f1b", 2 stages on 4 ranks, 2 microbatches
// SIM:        0     main_stage0 {{.*}} 64
// SIM:      peak memory per device (bytes):
// SIM-NEXT:   rank  stages
// SIM-NEXT:   0     0        {{[^ ]+}}    0            0            0            128
// SIM-NEXT:   1     1
// SIM-NEXT:   2     0        {{[^ ]+}}    0            0            0            128
// SIM-NEXT:   3     1

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

// -----

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
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<f32> attributes {pipe.replicas = array<i64: 4, 4>} {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = call @main_stage1(%0) : (tensor<8x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
