// RUN: pipewave-opt %s -split-input-file --sched-export -verify-diagnostics -o /dev/null
// RUN: not pipewave-opt %S/pipe-schedule-forward-only.mlir --pipe-partition="num-stages=2 strategy=uniform" --pipe-outline-stages --pipe-schedule --sched-export="file=%t.missing-dir/x.txt" 2>&1 | FileCheck %s --check-prefix=WRITE

// WRITE: error: sched-export: cannot write '{{.*}}missing-dir/x.txt':

// expected-error@+1 {{sched-export: no sched.program to export; run pipe-schedule first}}
module {
  func.func @main() {
    return
  }
}

// -----

module {
  sched.program "gpipe" stages 1 microbatches 1 forward_only {
    sched.rank 0 stages [0] {
      sched.compute F stage 0 mb 0
    }
  }
  // expected-error@+1 {{sched-export: found 2 sched.program operations; an action list holds one}}
  sched.program "gpipe" stages 1 microbatches 1 forward_only {
    sched.rank 0 stages [0] {
      sched.compute F stage 0 mb 0
    }
  }
}
