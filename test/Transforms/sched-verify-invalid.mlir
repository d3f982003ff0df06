// RUN: pipewave-opt %s -split-input-file --sched-verify -verify-diagnostics

// Deadlock: both ranks block on a recv first. Rank 0 waits for the gradient
// before it sends the activation that rank 1 waits for.

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0 stalls at 'recv grad stage 0 mb 0 from rank 1 (tag 1)': rank 1 is blocked at 'recv act stage 1 mb 0 from rank 0 (tag 0)'}}
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    // expected-error@+1 {{sched-verify: rank 1 stalls at 'recv act stage 1 mb 0 from rank 0 (tag 0)': rank 0 is blocked at 'recv grad stage 0 mb 0 from rank 1 (tag 1)'}}
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    sched.optimizer stage 1
  }
}

// -----

// Deadlock under rendezvous sends: the naive 1F1B order puts both ranks in a
// send to each other (rank 0: send act 1, then recv grad 0; rank 1: send
// grad 0, then recv act 1).

sched.program "1f1b" stages 2 microbatches 2 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.compute F stage 0 mb 1
    // expected-error@+1 {{sched-verify: rank 0 stalls at 'send act stage 0 mb 1 to rank 1 (tag 1)': rank 1 is blocked at 'send grad stage 1 mb 0 to rank 0 (tag 2)'}}
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
    sched.compute B stage 1 mb 0
    // expected-error@+1 {{sched-verify: rank 1 stalls at 'send grad stage 1 mb 0 to rank 0 (tag 2)': rank 0 is blocked at 'send act stage 0 mb 1 to rank 1 (tag 1)'}}
    sched.send grad stage 1 mb 0 to 0 tag 2
    sched.recv act stage 1 mb 1 from 0 tag 1
    sched.compute F stage 1 mb 1
    sched.compute B stage 1 mb 1
    sched.send grad stage 1 mb 1 to 0 tag 3
    sched.optimizer stage 1
  }
}

// -----

// Deadlock in collectives: both ranks hold both stages and all-reduce them in
// opposite orders.

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0, 1] {
    sched.compute F stage 0 mb 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0 stalls at 'allreduce stage 0 ranks [0, 1]': rank 1 is blocked at 'allreduce stage 1 ranks [0, 1]'}}
    sched.allreduce stage 0 ranks [0, 1]
    sched.allreduce stage 1 ranks [0, 1]
    sched.optimizer stage 0
    sched.optimizer stage 1
  }
  sched.rank 1 stages [0, 1] {
    sched.compute F stage 0 mb 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 1 stalls at 'allreduce stage 1 ranks [0, 1]': rank 0 is blocked at 'allreduce stage 0 ranks [0, 1]'}}
    sched.allreduce stage 1 ranks [0, 1]
    sched.allreduce stage 0 ranks [0, 1]
    sched.optimizer stage 0
    sched.optimizer stage 1
  }
}

// -----

// Completeness: microbatch 1 has no backward. Reported on the rank.

sched.program "x" stages 1 microbatches 2 {
  // expected-error@+1 {{sched-verify: rank 0: stage 0 microbatch 1 has no backward (B or I+W)}}
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute F stage 0 mb 1
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  // expected-error@+1 {{sched-verify: rank 0: stage 0 microbatch 0 has no forward (F)}}
  sched.rank 0 stages [0] {
    sched.compute B stage 0 mb 0
  }
}

// -----

sched.program "x" stages 1 microbatches 2 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: stage 0 microbatch 0 has I but no W}}
    sched.compute I stage 0 mb 0
    sched.compute F stage 0 mb 1
    // expected-error@+1 {{sched-verify: rank 0: stage 0 microbatch 1 has both B and I/W}}
    sched.compute B stage 0 mb 1
    sched.compute W stage 0 mb 1
  }
}

// -----

// Duplicate F.

sched.program "x" stages 1 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'F stage 0 mb 0' (action 1) duplicates 'F stage 0 mb 0' (action 0)}}
    sched.compute F stage 0 mb 0
  }
}

// -----

// A replicated stage without all-reduce: each replica is reported.

sched.program "x" stages 1 microbatches 1 {
  // expected-error@+1 {{sched-verify: rank 0: stage 0 is replicated on ranks [0, 1] but has no allreduce}}
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
  }
  // expected-error@+1 {{sched-verify: rank 1: stage 0 is replicated on ranks [0, 1] but has no allreduce}}
  sched.rank 1 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    sched.optimizer stage 0
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'optimizer stage 0' (action 1) comes before 'B stage 0 mb 0' (action 2), whose gradients it applies}}
    sched.optimizer stage 0
    sched.compute B stage 0 mb 0
  }
}

// -----

// Order: F before the recv of its input.

sched.program "x" stages 2 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
  }
  sched.rank 1 stages [1] {
    // expected-error@+1 {{sched-verify: rank 1: 'F stage 1 mb 0' (action 0) comes before 'recv act stage 1 mb 0 from rank 0 (tag 0)' (action 1), which it depends on}}
    sched.compute F stage 1 mb 0
    sched.recv act stage 1 mb 0 from 0 tag 0
  }
}

// -----

// Order: a forward whose output goes to another rank without a send.

sched.program "x" stages 2 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{sched-verify: rank 0: 'F stage 0 mb 0' (action 0) has no send act stage 0 mb 0 (stage 1 is on another rank)}}
    sched.compute F stage 0 mb 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
  }
}

// -----

// Matching: a send with a tag nobody receives; the recv that was meant for
// it then has no send either.

sched.program "x" stages 2 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'send act stage 0 mb 0 to rank 1 (tag 7)' (action 1) has no matching recv on rank 1}}
    sched.send act stage 0 mb 0 to 1 tag 7
  }
  sched.rank 1 stages [1] {
    // expected-error@+1 {{sched-verify: rank 1: 'recv act stage 1 mb 0 from rank 0 (tag 0)' (action 0) has no matching send on rank 0}}
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
  }
}

// -----

// Matching: the tags of two microbatches are swapped on the receiving side,
// so each send is received as the other microbatch.

sched.program "x" stages 2 microbatches 2 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'send act stage 0 mb 0 to rank 1 (tag 0)' (action 1) is received by 'recv act stage 1 mb 1 from rank 0 (tag 0)' (action 2) on rank 1, which should be a recv act stage 1 mb 0}}
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.compute F stage 0 mb 1
    // expected-error@+1 {{sched-verify: rank 0: 'send act stage 0 mb 1 to rank 1 (tag 1)' (action 3) is received by 'recv act stage 1 mb 0 from rank 0 (tag 1)' (action 0) on rank 1, which should be a recv act stage 1 mb 1}}
    sched.send act stage 0 mb 1 to 1 tag 1
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 1
    sched.compute F stage 1 mb 0
    sched.recv act stage 1 mb 1 from 0 tag 0
    sched.compute F stage 1 mb 1
  }
}

// -----

// Matching: a recv from the wrong peer. Stage 2 gets its input from stage 1,
// which rank 0 does not hold.

sched.program "x" stages 3 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    // expected-error@+1 {{sched-verify: rank 1: 'send act stage 1 mb 0 to rank 2 (tag 1)' (action 2) has no matching recv on rank 2}}
    sched.send act stage 1 mb 0 to 2 tag 1
  }
  sched.rank 2 stages [2] {
    // expected-error@+1 {{sched-verify: rank 2: 'recv act stage 2 mb 0 from rank 0 (tag 1)' (action 0): rank 0 does not hold stage 1}}
    sched.recv act stage 2 mb 0 from 0 tag 1
    sched.compute F stage 2 mb 0
  }
}

// -----

// Matching: the members of an all-reduce disagree on its group.

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'allreduce stage 0 ranks [0, 1, 2]' (action 2) disagrees on the group with 'allreduce stage 0 ranks [0, 1]' (action 2) on rank 1}}
    sched.allreduce stage 0 ranks [0, 1, 2]
    sched.optimizer stage 0
  }
  sched.rank 1 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 1: 'allreduce stage 0 ranks [0, 1]' (action 2) disagrees on the group with 'allreduce stage 0 ranks [0, 1, 2]' (action 2) on rank 0}}
    sched.allreduce stage 0 ranks [0, 1]
    sched.optimizer stage 0
  }
  sched.rank 2 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 2: 'allreduce stage 0 ranks [0, 1, 2]' (action 2) disagrees on the group with 'allreduce stage 0 ranks [0, 1]' (action 2) on rank 1}}
    sched.allreduce stage 0 ranks [0, 1, 2]
    sched.optimizer stage 0
  }
}

// -----

// Matching: rank 1 has no all-reduce to pair with rank 0's second one.

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
    sched.allreduce stage 0 ranks [0, 1]
    // expected-error@+1 {{sched-verify: rank 0: 'allreduce stage 0 ranks [0, 1]' (action 3) has no counterpart on rank 1, which has only 1 allreduce(s) for stage 0}}
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

// Structure: a stage no rank holds is reported on the program.

// expected-error@+1 {{sched-verify: stage 1 is held by no rank}}
sched.program "x" stages 2 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
  }
}

// -----

// Structure: an all-reduce with a member that does not hold the stage.

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
    sched.recv grad stage 0 mb 0 from 1 tag 1
    sched.compute B stage 0 mb 0
    // expected-error@+1 {{sched-verify: rank 0: 'allreduce stage 0 ranks [0, 1]' (action 4) has group member rank 1, which does not hold stage 0}}
    sched.allreduce stage 0 ranks [0, 1]
    sched.optimizer stage 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
    sched.compute B stage 1 mb 0
    sched.send grad stage 1 mb 0 to 0 tag 1
    sched.optimizer stage 1
  }
}

// -----

// Claimed sizes: a program that claims more (stage, microbatch) pairs than
// it has actions is refused before anything of the claimed size is
// allocated (found while writing the sched fuzzer).

// expected-error@+1 {{sched-verify: program: 1 stages x 1000000000 microbatches need at least 1000000000 actions (an F each), but the program has 2}}
sched.program "x" stages 1 microbatches 1000000000 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.compute B stage 0 mb 0
  }
}

// -----

// expected-error@+9 {{sched-verify: stage 1 is held by no rank}}
// expected-error@+8 {{sched-verify: stage 2 is held by no rank}}
// expected-error@+7 {{sched-verify: stage 3 is held by no rank}}
// expected-error@+6 {{sched-verify: stage 4 is held by no rank}}
// expected-error@+5 {{sched-verify: stage 5 is held by no rank}}
// expected-error@+4 {{sched-verify: stage 6 is held by no rank}}
// expected-error@+3 {{sched-verify: stage 7 is held by no rank}}
// expected-error@+2 {{sched-verify: stage 8 is held by no rank}}
// expected-error@+1 {{sched-verify: and 1999999991 more stages are held by no rank}}
sched.program "x" stages 2000000000 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
  }
}
