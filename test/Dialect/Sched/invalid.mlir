// RUN: pipewave-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{'sched.program' op attribute 'stages' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
sched.program "x" stages 0 microbatches 1 {
  sched.rank 0 stages [0] {
  }
}

// -----

// expected-error@+1 {{'sched.program' op attribute 'microbatches' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
sched.program "x" stages 1 microbatches 0 {
  sched.rank 0 stages [0] {
  }
}

// -----

// expected-error@+1 {{'sched.program' op has no ranks}}
sched.program "x" stages 1 microbatches 1 {
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
  }
  // expected-error@+1 {{'sched.rank' op ranks must be listed in order 0, 1, ...: expected rank 1, got 2}}
  sched.rank 2 stages [1] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  // expected-error@+1 {{'sched.rank' op ranks must be listed in order 0, 1, ...: expected rank 0, got 1}}
  sched.rank 1 stages [1] {
  }
  sched.rank 0 stages [0] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  // expected-error@+1 {{'sched.rank' op attribute 'rank' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  sched.rank -1 stages [0] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
  }
  // expected-error@+1 {{'arith.constant' op is not allowed in a sched.program; only sched.rank}}
  %c0 = arith.constant 0 : i64
}

// -----

// expected-error@+1 {{'sched.rank' op expects parent op 'sched.program'}}
sched.rank 0 stages [0] {
}

// -----

sched.program "x" stages 1 microbatches 1 {
  // expected-error@+1 {{'sched.rank' op holds no stage}}
  sched.rank 0 stages [] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  // expected-error@+1 {{'sched.rank' op holds stage 2, but the program has stages 0..1}}
  sched.rank 0 stages [0, 2] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  // expected-error@+1 {{'sched.rank' op holds stage -1, but the program has stages 0..1}}
  sched.rank 0 stages [-1, 0] {
  }
}

// -----

sched.program "x" stages 3 microbatches 1 {
  // expected-error@+1 {{'sched.rank' op stages must be sorted and unique}}
  sched.rank 0 stages [2, 0] {
  }
}

// -----

sched.program "x" stages 3 microbatches 1 {
  // expected-error@+1 {{'sched.rank' op stages must be sorted and unique}}
  sched.rank 0 stages [1, 1] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{'arith.constant' op is not allowed in a sched.rank; only the actions sched.compute, sched.send, sched.recv, sched.allreduce, sched.tied_allreduce and sched.optimizer}}
    %c0 = arith.constant 0 : i64
  }
}

// -----

func.func private @stage0_forward()

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'func.call' op is not allowed in a sched.rank; only the actions}}
    func.call @stage0_forward() : () -> ()
  }
}

// -----

func.func @action_outside_rank() {
  // expected-error@+1 {{'sched.compute' op expects parent op 'sched.rank'}}
  sched.compute F stage 0 mb 0
  return
}

// -----

sched.program "x" stages 1 microbatches 1 {
  // expected-error@+1 {{'sched.compute' op expects parent op 'sched.rank'}}
  sched.compute F stage 0 mb 0
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.compute' op acts on stage 1, which rank 0 does not hold}}
    sched.compute F stage 1 mb 0
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.send' op acts on stage 1, which rank 0 does not hold}}
    sched.send act stage 1 mb 0 to 1 tag 0
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
  }
  sched.rank 1 stages [1] {
    // expected-error@+1 {{'sched.allreduce' op acts on stage 0, which rank 1 does not hold}}
    sched.allreduce stage 0 ranks [0, 1]
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.optimizer' op acts on stage 1, which rank 0 does not hold}}
    sched.optimizer stage 1
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 1 microbatches 2 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.compute' op microbatch 2 is out of range 0..1}}
    sched.compute F stage 0 mb 2
  }
}

// -----

sched.program "x" stages 2 microbatches 2 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.recv' op microbatch 5 is out of range 0..1}}
    sched.recv grad stage 0 mb 5 from 1 tag 0
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.compute' op attribute 'mb' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    sched.compute F stage 0 mb -1
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.send' op peer rank 2 is out of range 0..1}}
    sched.send act stage 0 mb 0 to 2 tag 0
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
  }
  sched.rank 1 stages [1] {
    // expected-error@+1 {{'sched.recv' op peer rank 7 is out of range 0..1}}
    sched.recv act stage 1 mb 0 from 7 tag 0
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.send' op rank 0 talks to itself}}
    sched.send act stage 0 mb 0 to 0 tag 0
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
  }
  sched.rank 1 stages [1] {
    // expected-error@+1 {{'sched.recv' op rank 1 talks to itself}}
    sched.recv act stage 1 mb 0 from 1 tag 0
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.send' op attribute 'tag' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    sched.send act stage 0 mb 0 to 1 tag -1
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.allreduce' op group does not contain its own rank 0}}
    sched.allreduce stage 0 ranks [1, 2]
  }
  sched.rank 1 stages [0] {
  }
  sched.rank 2 stages [0] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
  }
  sched.rank 1 stages [0] {
    // expected-error@+1 {{'sched.allreduce' op ranks must be sorted and unique}}
    sched.allreduce stage 0 ranks [1, 0]
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.allreduce' op ranks must be sorted and unique}}
    sched.allreduce stage 0 ranks [0, 1, 1]
  }
  sched.rank 1 stages [0] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.allreduce' op group member rank 2 is out of range 0..1}}
    sched.allreduce stage 0 ranks [0, 2]
  }
  sched.rank 1 stages [0] {
  }
}

// -----

sched.program "x" stages 1 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{'sched.compute' op a forward_only program has no B actions}}
    sched.compute B stage 0 mb 0
  }
}

// -----

sched.program "x" stages 1 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.compute' op a forward_only program has no W actions}}
    sched.compute W stage 0 mb 0
  }
}

// -----

sched.program "x" stages 1 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    // expected-error@+1 {{'sched.optimizer' op a forward_only program has no optimizer step}}
    sched.optimizer stage 0
  }
}

// -----

sched.program "x" stages 4 microbatches 1 {
  sched.rank 0 stages [0, 3] {
    // expected-error@+1 {{'sched.tied_allreduce' op stage 3 is not the lowest user stage rank 0 holds}}
    sched.tied_allreduce "w" stage 3 users [0, 3] ranks [0]
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.tied_allreduce' op needs two or more user stages}}
    sched.tied_allreduce "w" stage 0 users [0] ranks [0]
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.tied_allreduce' op group does not contain its own rank 0}}
    sched.tied_allreduce "w" stage 0 users [0, 1] ranks [1]
  }
  sched.rank 1 stages [1] {
  }
}

// -----

sched.program "x" stages 2 microbatches 1 {
  sched.rank 0 stages [0] {
    // expected-error@+1 {{'sched.tied_allreduce' op names no parameter}}
    sched.tied_allreduce "" stage 0 users [0, 1] ranks [0]
  }
}
