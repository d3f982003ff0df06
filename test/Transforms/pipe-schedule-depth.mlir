// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=1f1b microbatches=2" --sched-verify | FileCheck %s --check-prefix=MLTS
// RUN: pipewave-opt %s --pipe-partition="num-stages=1" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=1f1b microbatches=4" --sched-verify | FileCheck %s --check-prefix=ONE
// RUN: pipewave-opt %s --pipe-partition="num-stages=1" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=4" --sched-verify | FileCheck %s --check-prefix=ONEGPIPE

// M < S: 4 stages, 2 microbatches. Stage s runs min(S-s, M) forwards
// before its first backward: 2, 2, 2, 1.

// MLTS-LABEL: sched.program "1f1b" stages 4 microbatches 2 {
// MLTS:         sched.rank 0 stages [0] {
// MLTS-NEXT:      sched.compute F stage 0 mb 0
// MLTS-NEXT:      sched.send act stage 0 mb 0 to 1
// MLTS-NEXT:      sched.compute F stage 0 mb 1
// MLTS-NEXT:      sched.send act stage 0 mb 1 to 1
// MLTS-NEXT:      sched.recv grad stage 0 mb 0 from 1
// MLTS-NEXT:      sched.compute B stage 0 mb 0
// MLTS-NEXT:      sched.recv grad stage 0 mb 1 from 1
// MLTS-NEXT:      sched.compute B stage 0 mb 1
// MLTS-NEXT:      sched.optimizer stage 0
// MLTS:         sched.rank 2 stages [2] {
// MLTS-NEXT:      sched.recv act stage 2 mb 0 from 1
// MLTS-NEXT:      sched.compute F stage 2 mb 0
// MLTS-NEXT:      sched.send act stage 2 mb 0 to 3
// MLTS-NEXT:      sched.recv act stage 2 mb 1 from 1
// MLTS-NEXT:      sched.compute F stage 2 mb 1
// MLTS:           sched.compute B stage 2 mb 0
// MLTS:         sched.rank 3 stages [3] {
// MLTS-NEXT:      sched.recv act stage 3 mb 0 from 2
// MLTS-NEXT:      sched.compute F stage 3 mb 0
// MLTS-NEXT:      sched.compute B stage 3 mb 0

// S = 1: one rank, no messages; 1F1B alternates F and B.
// ONE-LABEL: sched.program "1f1b" stages 1 microbatches 4 {
// ONE-NEXT:    sched.rank 0 stages [0] {
// ONE-NEXT:      sched.compute F stage 0 mb 0
// ONE-NEXT:      sched.compute B stage 0 mb 0
// ONE-NEXT:      sched.compute F stage 0 mb 1
// ONE-NEXT:      sched.compute B stage 0 mb 1
// ONE-NEXT:      sched.compute F stage 0 mb 2
// ONE-NEXT:      sched.compute B stage 0 mb 2
// ONE-NEXT:      sched.compute F stage 0 mb 3
// ONE-NEXT:      sched.compute B stage 0 mb 3
// ONE-NEXT:      sched.optimizer stage 0
// ONE-NEXT:    }
// ONE-NEXT:  }

// ONEGPIPE-LABEL: sched.program "gpipe" stages 1 microbatches 4 {
// ONEGPIPE-COUNT-4: sched.compute F
// ONEGPIPE-COUNT-4: sched.compute B
// ONEGPIPE-NEXT:    sched.optimizer stage 0
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<f32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %c {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
