// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=1f1b microbatches=2" --sched-verify | FileCheck %s --check-prefix=ONEF
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=1f1b microbatches=2 replicas=2" --sched-verify | FileCheck %s --check-prefix=REPL
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=interleaved chunks=2 microbatches=2" --sched-verify | FileCheck %s --check-prefix=INTER
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=zb-v microbatches=2" --sched-verify | FileCheck %s --check-prefix=ZBV
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=hanayo waves=1 microbatches=2" --sched-verify | FileCheck %s --check-prefix=ZBV
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=1f1b microbatches=2 forward-only=true" | FileCheck %s --check-prefix=INFER

// A trained parameter that two stages read (a tied weight: stage 0 and
// stage 3 read 'w') lives on every rank holding one of them. Each of those
// ranks sums the copies' gradients with a sched.tied_allreduce among one
// holder of each user stage, after its replica all-reduces and before its
// optimizer steps, so every copy applies the same update.

// 1F1B: four ranks; ranks 0 and 3 hold the copies, ranks 1 and 2 none.
// ONEF-LABEL: sched.rank 0 stages [0]
// ONEF: sched.compute B stage 0 mb 1
// ONEF-NEXT: sched.tied_allreduce "w" stage 0 users [0, 3] ranks [0, 3]
// ONEF-NEXT: sched.optimizer stage 0
// ONEF-LABEL: sched.rank 1 stages [1]
// ONEF-NOT: sched.tied_allreduce
// ONEF-LABEL: sched.rank 3 stages [3]
// ONEF: sched.tied_allreduce "w" stage 3 users [0, 3] ranks [0, 3]
// ONEF-NEXT: sched.optimizer stage 3

// Two replicas: the replica all-reduce of the stage first, then the tied
// all-reduce inside each replica (ranks 0-3 and 4-7).
// REPL-LABEL: sched.rank 0 stages [0]
// REPL: sched.allreduce stage 0 ranks [0, 4]
// REPL-NEXT: sched.tied_allreduce "w" stage 0 users [0, 3] ranks [0, 3]
// REPL-NEXT: sched.optimizer stage 0
// REPL-LABEL: sched.rank 7 stages [3]
// REPL: sched.allreduce stage 3 ranks [3, 7]
// REPL-NEXT: sched.tied_allreduce "w" stage 3 users [0, 3] ranks [4, 7]
// REPL-NEXT: sched.optimizer stage 3

// Interleaved: rank 0 holds stages 0 and 2, rank 1 stages 1 and 3; the
// optimizer steps follow the tied all-reduce.
// INTER-LABEL: sched.rank 0 stages [0, 2]
// INTER: sched.tied_allreduce "w" stage 0 users [0, 3] ranks [0, 1]
// INTER-NEXT: sched.optimizer stage 0
// INTER-NEXT: sched.optimizer stage 2
// INTER-LABEL: sched.rank 1 stages [1, 3]
// INTER: sched.tied_allreduce "w" stage 3 users [0, 3] ranks [0, 1]
// INTER-NEXT: sched.optimizer stage 1
// INTER-NEXT: sched.optimizer stage 3

// ZB-V (and Hanayo with one wave): rank 0 holds stages 0 and 3, both users:
// one copy, summed locally (a group of one rank); rank 1 holds no user.
// ZBV-LABEL: sched.rank 0 stages [0, 3]
// ZBV: sched.tied_allreduce "w" stage 0 users [0, 3] ranks [0]
// ZBV-NEXT: sched.optimizer stage 0
// ZBV-LABEL: sched.rank 1 stages [1, 2]
// ZBV-NOT: sched.tied_allreduce

// An inference step trains nothing and sums nothing.
// INFER: sched.program "1f1b" stages 4 microbatches 2 forward_only
// INFER-NOT: sched.tied_allreduce

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<4x8xf32> {pipe.name = "w", pipe.param}) -> tensor<f32> {
  %a = tosa.add %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.tanh %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %c = tosa.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %d = tosa.add %c, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %d {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
