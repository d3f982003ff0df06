// forward-only=true schedules an inference step even when the entry returns
// a loss: forwards only, no backward and no optimizer step, and 1F1B keeps
// GPipe's forward order (there is no backward to interleave).

// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-partition="num-stages=2 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=1f1b microbatches=2 forward-only=true" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=FWD
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-partition="num-stages=2 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=1f1b microbatches=2" --sched-verify --sched-export -o /dev/null | FileCheck %s --check-prefix=TRAIN

// FWD:      # pipewave schedule S=2 M=2 name=1f1b forward-only
// FWD-NEXT: stages 0: 0
// FWD-NEXT: stages 1: 1
// FWD-NEXT: 0: 0F0 0F1
// FWD-NEXT: 1: 1F0 1F1
// FWD-NOT:  B

// TRAIN:     # pipewave schedule S=2 M=2 name=1f1b
// TRAIN-NOT: forward-only
// TRAIN:     0: {{.*}}0B0
