// An entry without a scalar loss is an inference step: every schedule
// keeps its placement and the order of its forwards, and nothing else.

// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=interleaved microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=INTERLEAVED
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=hanayo microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=HANAYO
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zb-h1 microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=ZBH1
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zb-v microbatches=2" --sched-verify | FileCheck %s --check-prefix=ZBV

// INTERLEAVED:      # pipewave schedule S=4 M=2 name=interleaved forward-only
// INTERLEAVED-NEXT: stages 0: 0 2
// INTERLEAVED-NEXT: stages 1: 1 3
// INTERLEAVED-NEXT: 0: 0F0 0F1 2F0 2F1
// INTERLEAVED-NEXT: 1: 1F0 1F1 3F0 3F1

// HANAYO:      # pipewave schedule S=4 M=2 name=hanayo forward-only
// HANAYO-NEXT: stages 0: 0 3
// HANAYO-NEXT: stages 1: 1 2
// HANAYO-NEXT: 0: 0F0 0F1 3F0 3F1
// HANAYO-NEXT: 1: 1F0 2F0 1F1 2F1

// ZBH1:      # pipewave schedule S=4 M=2 name=zb-h1 forward-only
// ZBH1:      3: 3F0 3F1

// ZBV-LABEL: sched.program "zb-v" stages 4 microbatches 2 forward_only {
// ZBV-NOT:     sched.compute {{[BIW]}}
// ZBV-NOT:     sched.optimizer
// ZBV:       }

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = tosa.exp %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
