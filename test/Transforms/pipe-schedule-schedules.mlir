// The multi-chunk and zero-bubble schedules of pipe-schedule on four stages
// and two microbatches, printed as action lists by sched-export (the sends
// and receives are checked by sched-verify).

// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=interleaved microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=INTERLEAVED
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=interleaved-1f1b chunks=2 microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=INTERLEAVED
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=interleaved chunks=4 microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=CHUNKS4
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=hanayo microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=HANAYO
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=hanayo waves=2 microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=HANAYO2
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zb-h1 microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=ZBH1
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zb-v microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=ZBV
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zbv microbatches=2" --sched-verify | FileCheck %s --check-prefix=ZBVIR

// Interleaved 1F1B, two chunks per rank: stage c*P + r on rank r.
// INTERLEAVED:      # pipewave schedule S=4 M=2 name=interleaved
// INTERLEAVED-NEXT: stages 0: 0 2
// INTERLEAVED-NEXT: stages 1: 1 3
// INTERLEAVED-NEXT: 0: 0F0 0F1 2F0 2F1 2B0 2B1 0B0 0B1 OPT0 OPT2
// INTERLEAVED-NEXT: 1: 1F0 1F1 3F0 3F1 3B0 3B1 1B0 1B1 OPT1 OPT3

// Four chunks on one rank.
// CHUNKS4:      # pipewave schedule S=4 M=2 name=interleaved
// CHUNKS4-NEXT: stages 0: 0 1 2 3
// CHUNKS4-NEXT: 0: 0F0 1F0 2F0 3F0 3B0 0F1 2B0 1F1 1B0 2F1 0B0 3F1 3B1 2B1 1B1 0B1 OPT0 OPT1 OPT2 OPT3

// Hanayo, one wave: down the ranks and back up, the turn local to rank 1.
// HANAYO:      # pipewave schedule S=4 M=2 name=hanayo
// HANAYO-NEXT: stages 0: 0 3
// HANAYO-NEXT: stages 1: 1 2
// HANAYO-NEXT: 0: 0F0 0F1 3F0 3B0 3F1 3B1 0B0 0B1 OPT0 OPT3
// HANAYO-NEXT: 1: 1F0 2F0 1F1 2F1 2B0 1B0 2B1 1B1 OPT1 OPT2

// Two waves over four stages: one rank holding all of them.
// HANAYO2:      # pipewave schedule S=4 M=2 name=hanayo
// HANAYO2-NEXT: stages 0: 0 1 2 3

// ZB-H1: backward split into I and W, one stage per rank.
// ZBH1:      # pipewave schedule S=4 M=2 name=zb-h1
// ZBH1:      0: 0F0 0F1 0I0 0W0 0I1 0W1 OPT0
// ZBH1-NEXT: 1: 1F0 1F1 1I0 1I1 1W0 1W1 OPT1
// ZBH1-NEXT: 2: 2F0 2F1 2I0 2I1 2W0 2W1 OPT2
// ZBH1-NEXT: 3: 3F0 3I0 3F1 3I1 3W0 3W1 OPT3

// ZB-V: rank r holds stages r and 2P-1-r.
// ZBV:      # pipewave schedule S=4 M=2 name=zb-v
// ZBV-NEXT: stages 0: 0 3
// ZBV-NEXT: stages 1: 1 2
// ZBV-NEXT: 0: 0F0 0F1 3F0 3I0 3F1 3I1 0I0 0W0 0I1 3W0 0W1 3W1 OPT0 OPT3
// ZBV-NEXT: 1: 1F0 2F0 1F1 2F1 2I0 1I0 2I1 1I1 1W0 2W0 1W1 2W1 OPT1 OPT2

// The stage functions have no pipe.bwd_input / pipe.bwd_weight (no
// pipe-autodiff{split=true}): the program is emitted all the same.
// ZBVIR: sched.program "zb-v" stages 4 microbatches 2 {
// ZBVIR:   sched.rank 0 stages [0, 3] {
// ZBVIR:     sched.compute I stage 3 mb 0
// ZBVIR:     sched.compute W stage 0 mb 0

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<f32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = tosa.exp %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %d {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
