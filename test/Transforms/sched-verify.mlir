// RUN: pipewave-opt %s -split-input-file --sched-verify -verify-diagnostics | FileCheck %s

// sched-verify accepts these hand-written programs and leaves them unchanged.
// Tags follow messageTag(): activation (boundary b, mb m) = b*M + m, gradient
// = (S-1 + b)*M + m.

// GPipe, 2 stages, 2 microbatches: all forwards, then all backwards.

// CHECK-LABEL: sched.program "gpipe" stages 2 microbatches 2 {
//  CHECK-NEXT:   sched.rank 0 stages [0] {
//  CHECK-NEXT:     sched.compute F stage 0 mb 0
//  CHECK-NEXT:     sched.send act stage 0 mb 0 to 1 tag 0
//  CHECK-NEXT:     sched.compute F stage 0 mb 1
//  CHECK-NEXT:     sched.send act stage 0 mb 1 to 1 tag 1
//  CHECK-NEXT:     sched.recv grad stage 0 mb 0 from 1 tag 2
//  CHECK-NEXT:     sched.compute B stage 0 mb 0
//  CHECK-NEXT:     sched.recv grad stage 0 mb 1 from 1 tag 3
//  CHECK-NEXT:     sched.compute B stage 0 mb 1
//  CHECK-NEXT:     sched.optimizer stage 0
//  CHECK-NEXT:   }
//  CHECK-NEXT:   sched.rank 1 stages [1] {
//  CHECK-NEXT:     sched.recv act stage 1 mb 0 from 0 tag 0
//  CHECK-NEXT:     sched.compute F stage 1 mb 0
//  CHECK-NEXT:     sched.recv act stage 1 mb 1 from 0 tag 1
//  CHECK-NEXT:     sched.compute F stage 1 mb 1
//  CHECK-NEXT:     sched.compute B stage 1 mb 0
//  CHECK-NEXT:     sched.send grad stage 1 mb 0 to 0 tag 2
//  CHECK-NEXT:     sched.compute B stage 1 mb 1
//  CHECK-NEXT:     sched.send grad stage 1 mb 1 to 0 tag 3
//  CHECK-NEXT:     sched.optimizer stage 1
//  CHECK-NEXT:   }
//  CHECK-NEXT: }
sched.program "gpipe" stages 2 microbatches 2 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.compute F stage 0 mb 1
    sched.send act stage 0 mb 1 to 1 tag 1
    sched.recv grad stage 0 mb 0 from 1 tag 2
    sched.compute B stage 0 mb 0
    sched.recv grad stage 0 mb 1 from 1 tag 3
    sched.compute B stage 0 mb 1
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.recv act stage 1 mb 1 from 0 tag 1
    sched.compute F stage 1 mb 1
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 2
    sched.compute B stage 1 mb 1
    sched.send grad stage 1 mb 1 to 0 tag 3
    sched.optimizer stage 1
  }
}

// -----

// 1F1B, 2 stages, 2 microbatches. Rank 0 receives grad 0 before it sends
// act 1 (like Megatron's send_forward_recv_backward), which both ranks then
// exchange in the same order, so rendezvous sends cannot deadlock.

// CHECK-LABEL: sched.program "1f1b" stages 2 microbatches 2 {
//  CHECK-NEXT:   sched.rank 0 stages [0] {
//  CHECK-NEXT:     sched.compute F stage 0 mb 0
//  CHECK-NEXT:     sched.send act stage 0 mb 0 to 1 tag 0
//  CHECK-NEXT:     sched.compute F stage 0 mb 1
//  CHECK-NEXT:     sched.recv grad stage 0 mb 0 from 1 tag 2
//  CHECK-NEXT:     sched.send act stage 0 mb 1 to 1 tag 1
//  CHECK-NEXT:     sched.compute B stage 0 mb 0
//  CHECK-NEXT:     sched.recv grad stage 0 mb 1 from 1 tag 3
//  CHECK-NEXT:     sched.compute B stage 0 mb 1
//  CHECK-NEXT:     sched.optimizer stage 0
//  CHECK-NEXT:   }
//  CHECK-NEXT:   sched.rank 1 stages [1] {
//  CHECK-NEXT:     sched.recv act stage 1 mb 0 from 0 tag 0
//  CHECK-NEXT:     sched.compute F stage 1 mb 0
//  CHECK-NEXT:     sched.compute B stage 1 mb 0
//  CHECK-NEXT:     sched.send grad stage 1 mb 0 to 0 tag 2
//  CHECK-NEXT:     sched.recv act stage 1 mb 1 from 0 tag 1
//  CHECK-NEXT:     sched.compute F stage 1 mb 1
//  CHECK-NEXT:     sched.compute B stage 1 mb 1
//  CHECK-NEXT:     sched.send grad stage 1 mb 1 to 0 tag 3
//  CHECK-NEXT:     sched.optimizer stage 1
//  CHECK-NEXT:   }
//  CHECK-NEXT: }
sched.program "1f1b" stages 2 microbatches 2 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.compute F stage 0 mb 1
    sched.recv grad stage 0 mb 0 from 1 tag 2
    sched.send act stage 0 mb 1 to 1 tag 1
    sched.compute B stage 0 mb 0
    sched.recv grad stage 0 mb 1 from 1 tag 3
    sched.compute B stage 0 mb 1
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 2
    sched.recv act stage 1 mb 1 from 0 tag 1
    sched.compute F stage 1 mb 1
    sched.compute B stage 1 mb 1
    sched.send grad stage 1 mb 1 to 0 tag 3
    sched.optimizer stage 1
  }
}

// -----

// Split backward (zero-bubble style): I sends the input gradient early, the
// W of rank 1 fill the end of the step.

// CHECK-LABEL: sched.program "zb" stages 2 microbatches 2 {
//       CHECK:   sched.rank 0 stages [0] {
//       CHECK:     sched.compute I stage 0 mb 0
//  CHECK-NEXT:     sched.compute W stage 0 mb 0
//       CHECK:   sched.rank 1 stages [1] {
//  CHECK-NEXT:     sched.recv act stage 1 mb 0 from 0 tag 0
//  CHECK-NEXT:     sched.compute F stage 1 mb 0
//  CHECK-NEXT:     sched.compute I stage 1 mb 0
//  CHECK-NEXT:     sched.send grad stage 1 mb 0 to 0 tag 2
//  CHECK-NEXT:     sched.recv act stage 1 mb 1 from 0 tag 1
//  CHECK-NEXT:     sched.compute F stage 1 mb 1
//  CHECK-NEXT:     sched.compute I stage 1 mb 1
//  CHECK-NEXT:     sched.send grad stage 1 mb 1 to 0 tag 3
//  CHECK-NEXT:     sched.compute W stage 1 mb 0
//  CHECK-NEXT:     sched.compute W stage 1 mb 1
//  CHECK-NEXT:     sched.optimizer stage 1
//  CHECK-NEXT:   }
sched.program "zb" stages 2 microbatches 2 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.compute F stage 0 mb 1
    sched.recv grad stage 0 mb 0 from 1 tag 2
    sched.send act stage 0 mb 1 to 1 tag 1
    sched.compute I stage 0 mb 0
    sched.compute W stage 0 mb 0
    sched.recv grad stage 0 mb 1 from 1 tag 3
    sched.compute I stage 0 mb 1
    sched.compute W stage 0 mb 1
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute I stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 2
    sched.recv act stage 1 mb 1 from 0 tag 1
    sched.compute F stage 1 mb 1
    sched.compute I stage 1 mb 1
    sched.send grad stage 1 mb 1 to 0 tag 3
    sched.compute W stage 1 mb 0
    sched.compute W stage 1 mb 1
    sched.optimizer stage 1
  }
}

// -----

// Two data-parallel replicas of a 2-stage pipeline: ranks 0 and 2 hold
// stage 0, ranks 1 and 3 stage 1; each replicated stage all-reduces its
// gradients before its optimizer step.

// CHECK-LABEL: sched.program "gpipe" stages 2 microbatches 1 {
//       CHECK:   sched.rank 0 stages [0] {
//       CHECK:     sched.compute B stage 0 mb 0
//  CHECK-NEXT:     sched.allreduce stage 0 ranks [0, 2]
//  CHECK-NEXT:     sched.optimizer stage 0
//       CHECK:   sched.rank 1 stages [1] {
//       CHECK:     sched.allreduce stage 1 ranks [1, 3]
//       CHECK:   sched.rank 2 stages [0] {
//       CHECK:     sched.allreduce stage 0 ranks [0, 2]
//       CHECK:   sched.rank 3 stages [1] {
//       CHECK:     sched.allreduce stage 1 ranks [1, 3]
//  CHECK-NEXT:     sched.optimizer stage 1
sched.program "gpipe" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.compute B stage 0 mb 0
    sched.allreduce stage 0 ranks [0, 2]
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    sched.allreduce stage 1 ranks [1, 3]
    sched.optimizer stage 1
  }
  sched.rank 2 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 3 tag 0
    sched.recv grad stage 0 mb 0 from 3 tag 1
    sched.compute B stage 0 mb 0
    sched.allreduce stage 0 ranks [0, 2]
    sched.optimizer stage 0
  }
  sched.rank 3 stages [1] {
    sched.recv act stage 1 mb 0 from 2 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 2 tag 1
    sched.allreduce stage 1 ranks [1, 3]
    sched.optimizer stage 1
  }
}

// -----

// A rank holding two stages (V shape over 2 ranks): stages 1 and 2 hand
// their data over on rank 1 without messages.

// CHECK-LABEL: sched.program "v" stages 4 microbatches 1 {
//       CHECK:   sched.rank 1 stages [1, 2] {
//  CHECK-NEXT:     sched.recv act stage 1 mb 0 from 0 tag 0
//  CHECK-NEXT:     sched.compute F stage 1 mb 0
//  CHECK-NEXT:     sched.compute F stage 2 mb 0
//  CHECK-NEXT:     sched.send act stage 2 mb 0 to 0 tag 2
sched.program "v" stages 4 microbatches 1 {
  sched.rank 0 stages [0, 3] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv act stage 3 mb 0 from 1 tag 2
    sched.compute F stage 3 mb 0
    sched.compute B stage 3 mb 0
    sched.send grad stage 3 mb 0 to 1 tag 5
    sched.recv grad stage 0 mb 0 from 1 tag 3
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
    sched.optimizer stage 3
  }
  sched.rank 1 stages [1, 2] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute F stage 2 mb 0
    sched.send act stage 2 mb 0 to 0 tag 2
    sched.recv grad stage 2 mb 0 from 0 tag 5
    sched.compute B stage 2 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 3
    sched.optimizer stage 1
    sched.optimizer stage 2
  }
}

// -----

// Inference: forwards and activations only.

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

// Programs nested in a module with other operations are verified too.

// CHECK-LABEL: func.func private @stage0
//       CHECK: sched.program "single" stages 1 microbatches 1 {
func.func private @stage0()
sched.program "single" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
  }
}
