// RUN: pipewave-opt %s -split-input-file | FileCheck %s
// Round trip through the generic form as well.
// RUN: pipewave-opt %s -split-input-file -mlir-print-op-generic | pipewave-opt -split-input-file | FileCheck %s

// Every action kind; rank 0 holds two stages (a V shape over 2 ranks) and
// splits the backward of stage 2 into I and W.

// CHECK-LABEL: sched.program "v" stages 3 microbatches 1 {
//  CHECK-NEXT:   sched.rank 0 stages [0, 2] {
//  CHECK-NEXT:     sched.compute F stage 0 mb 0
//  CHECK-NEXT:     sched.send act stage 0 mb 0 to 1 tag 0
//  CHECK-NEXT:     sched.recv act stage 2 mb 0 from 1 tag 1
//  CHECK-NEXT:     sched.compute F stage 2 mb 0
//  CHECK-NEXT:     sched.compute I stage 2 mb 0
//  CHECK-NEXT:     sched.send grad stage 2 mb 0 to 1 tag 2
//  CHECK-NEXT:     sched.compute W stage 2 mb 0
//  CHECK-NEXT:     sched.recv grad stage 0 mb 0 from 1 tag 3
//  CHECK-NEXT:     sched.compute B stage 0 mb 0
//  CHECK-NEXT:     sched.optimizer stage 0
//  CHECK-NEXT:     sched.optimizer stage 2
//  CHECK-NEXT:   }
//  CHECK-NEXT:   sched.rank 1 stages [1] {
//  CHECK-NEXT:     sched.recv act stage 1 mb 0 from 0 tag 0
//  CHECK-NEXT:     sched.compute F stage 1 mb 0
//  CHECK-NEXT:     sched.send act stage 1 mb 0 to 0 tag 1
//  CHECK-NEXT:     sched.recv grad stage 1 mb 0 from 0 tag 2
//  CHECK-NEXT:     sched.compute B stage 1 mb 0
//  CHECK-NEXT:     sched.send grad stage 1 mb 0 to 0 tag 3
//  CHECK-NEXT:     sched.optimizer stage 1
//  CHECK-NEXT:   }
//  CHECK-NEXT: }
sched.program "v" stages 3 microbatches 1 {
  sched.rank 0 stages [0, 2] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv act stage 2 mb 0 from 1 tag 1
    sched.compute F stage 2 mb 0
    sched.compute I stage 2 mb 0
    sched.send grad stage 2 mb 0 to 1 tag 2
    sched.compute W stage 2 mb 0
    sched.recv grad stage 0 mb 0 from 1 tag 3
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
    sched.optimizer stage 2
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.send act stage 1 mb 0 to 0 tag 1
    sched.recv grad stage 1 mb 0 from 0 tag 2
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 3
    sched.optimizer stage 1
  }
}

// -----

// Two data-parallel replicas of a single-stage model.

// CHECK-LABEL: sched.program "dp" stages 1 microbatches 1 {
//  CHECK-NEXT:   sched.rank 0 stages [0] {
//  CHECK-NEXT:     sched.compute F stage 0 mb 0
//  CHECK-NEXT:     sched.compute B stage 0 mb 0
//  CHECK-NEXT:     sched.allreduce stage 0 ranks [0, 1]
//  CHECK-NEXT:     sched.optimizer stage 0
//  CHECK-NEXT:   }
//  CHECK-NEXT:   sched.rank 1 stages [0] {
//       CHECK:     sched.allreduce stage 0 ranks [0, 1]
sched.program "dp" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    sched.allreduce stage 0 ranks [0, 1]
    sched.optimizer stage 0
  }
  sched.rank 1 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    sched.allreduce stage 0 ranks [0, 1]
    sched.optimizer stage 0
  }
}

// -----

// A parameter that stages 0 and 1 read (tied), on two ranks.

// CHECK-LABEL: sched.program "tied" stages 2 microbatches 1 {
//       CHECK:     sched.tied_allreduce "wte" stage 0 users [0, 1] ranks [0, 1]
//  CHECK-NEXT:     sched.optimizer stage 0
//       CHECK:     sched.tied_allreduce "wte" stage 1 users [0, 1] ranks [0, 1]
sched.program "tied" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.compute B stage 0 mb 0
    sched.tied_allreduce "wte" stage 0 users [0, 1] ranks [0, 1]
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    sched.tied_allreduce "wte" stage 1 users [0, 1] ranks [0, 1]
    sched.optimizer stage 1
  }
}

// -----

// CHECK-LABEL: sched.program "gpipe" stages 2 microbatches 2 forward_only {
//  CHECK-NEXT:   sched.rank 0 stages [0] {
//  CHECK-NEXT:     sched.compute F stage 0 mb 0
//  CHECK-NEXT:     sched.send act stage 0 mb 0 to 1 tag 0
//  CHECK-NEXT:     sched.compute F stage 0 mb 1
//  CHECK-NEXT:     sched.send act stage 0 mb 1 to 1 tag 1
//  CHECK-NEXT:   }
//  CHECK-NEXT:   sched.rank 1 stages [1] {
//  CHECK-NEXT:     sched.recv act stage 1 mb 0 from 0 tag 0
//  CHECK-NEXT:     sched.compute F stage 1 mb 0
//  CHECK-NEXT:     sched.recv act stage 1 mb 1 from 0 tag 1
//  CHECK-NEXT:     sched.compute F stage 1 mb 1
//  CHECK-NEXT:   }
//  CHECK-NEXT: }
sched.program "gpipe" stages 2 microbatches 2 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.compute F stage 0 mb 1
    sched.send act stage 0 mb 1 to 1 tag 1
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.recv act stage 1 mb 1 from 0 tag 1
    sched.compute F stage 1 mb 1
  }
}

// -----

// Discardable attributes and an empty rank survive the round trip.

// CHECK-LABEL: sched.program "file" stages 1 microbatches 4 attributes {origin = "hand"} {
//  CHECK-NEXT:   sched.rank 0 stages [0] attributes {device = 3 : i64} {
//  CHECK-NEXT:   }
//  CHECK-NEXT: }
sched.program "file" stages 1 microbatches 4 attributes {origin = "hand"} {
  sched.rank 0 stages [0] attributes {device = 3} {
  }
}
