// RUN: pipewave-opt %s -split-input-file --sched-verify -verify-diagnostics

// The tied all-reduce of a parameter that stages 0 and 1 read: every holder
// of a user stage has one, after the backwards of its user stages and
// before its optimizer step, on the same group; all holders enter the tied
// all-reduces in one order.

// Before the backward whose gradient it sums.
sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    // expected-error@+1 {{sched-verify: rank 0: 'tied 'w' stage 0 of stages [0, 1] ranks [0, 1]' (action 3) comes before 'B stage 0 mb 0' (action 4), whose gradient of 'w' it sums}}
    sched.tied_allreduce "w" stage 0 users [0, 1] ranks [0, 1]
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    sched.tied_allreduce "w" stage 1 users [0, 1] ranks [0, 1]
    sched.optimizer stage 1
  }
}

// -----

// After the optimizer step that applies it.
sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
    // expected-error@+1 {{sched-verify: rank 0: 'tied 'w' stage 0 of stages [0, 1] ranks [0, 1]' (action 5) comes after 'optimizer stage 0' (action 4), which applies its result}}
    sched.tied_allreduce "w" stage 0 users [0, 1] ranks [0, 1]
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    sched.tied_allreduce "w" stage 1 users [0, 1] ranks [0, 1]
    sched.optimizer stage 1
  }
}

// -----

// A holder of a user stage without the tied all-reduce: its copy would
// drift apart.
sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.compute B stage 0 mb 0
    sched.tied_allreduce "w" stage 0 users [0, 1] ranks [0, 1]
    sched.optimizer stage 0
  }
  // expected-error@+1 {{sched-verify: rank 1: holds stage 1, a user of 'w', but has no tied all-reduce of it}}
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    sched.optimizer stage 1
  }
}

// -----

// A group without a holder of every user stage.
sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'tied 'w' stage 0 of stages [0, 1] ranks [0]' (action 4) has 0 holders of user stage 1 in its group (it needs exactly one)}}
    sched.tied_allreduce "w" stage 0 users [0, 1] ranks [0]
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    // expected-error@+1 {{sched-verify: rank 1: 'tied 'w' stage 1 of stages [0, 1] ranks [1]' (action 4) has 0 holders of user stage 0 in its group (it needs exactly one)}}
    sched.tied_allreduce "w" stage 1 users [0, 1] ranks [1]
    sched.optimizer stage 1
  }
}

// -----

// Two tied parameters summed in opposite orders: each rank waits for the
// other in a different all-reduce.
sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0 stalls at 'tied 'u' stage 0 of stages [0, 1] ranks [0, 1]': rank 1 is blocked at 'tied 'w' stage 1 of stages [0, 1] ranks [0, 1]'}}
    sched.tied_allreduce "u" stage 0 users [0, 1] ranks [0, 1]
    sched.tied_allreduce "w" stage 0 users [0, 1] ranks [0, 1]
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    // expected-error@+1 {{sched-verify: rank 1 stalls at 'tied 'w' stage 1 of stages [0, 1] ranks [0, 1]': rank 0 is blocked at 'tied 'u' stage 0 of stages [0, 1] ranks [0, 1]'}}
    sched.tied_allreduce "w" stage 1 users [0, 1] ranks [0, 1]
    sched.tied_allreduce "u" stage 1 users [0, 1] ranks [0, 1]
    sched.optimizer stage 1
  }
}

// -----

// The holders disagree on the user stages.
sched.program "x" stages 3 microbatches 1 {
  sched.rank 0 stages [0, 2] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv act stage 2 mb 0 from 1 tag 1
    sched.compute F stage 2 mb 0
    sched.compute B stage 2 mb 0
    sched.send grad stage 2 mb 0 to 1 tag 2
    sched.recv grad stage 0 mb 0 from 1 tag 3
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'tied 'w' stage 0 of stages [0, 2] ranks [0, 1]' (action 8) has group member rank 1, which holds no user stage}}
    sched.tied_allreduce "w" stage 0 users [0, 2] ranks [0, 1]
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
