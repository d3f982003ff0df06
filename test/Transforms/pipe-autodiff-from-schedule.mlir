// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=2 schedule=zb-h1 microbatches=2},pipe-recompute{policy=full from-schedule=true report=false},pipe-autodiff{from-schedule=true})' | FileCheck %s --check-prefix=SPLIT
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=2 schedule=1f1b microbatches=2},pipe-autodiff{from-schedule=true})' | FileCheck %s --check-prefix=FULL
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-partition{num-stages=2},pipe-outline-stages,pipe-insert-comm,pipe-schedule{schedule=gpipe forward-only=true},pipe-recompute{policy=full from-schedule=true},pipe-autodiff{from-schedule=true})' | FileCheck %s --check-prefix=INFER
// RUN: not pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-partition{num-stages=2},pipe-outline-stages,pipe-autodiff{from-schedule=true})' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-partition{num-stages=2},pipe-outline-stages,pipe-recompute{from-schedule=true})' 2>&1 | FileCheck %s --check-prefix=MISSING-RC

// from-schedule: pipe-recompute and pipe-autodiff do what the sched.program
// needs. A zero-bubble program (I/W actions) gets split backward functions,
// 1F1B whole ones, a forward-only program none at all.

// SPLIT: func.func private @main_stage0_bwd_input
// SPLIT: func.func private @main_stage0_bwd_weight
// FULL: func.func private @main_stage0_bwd(
// FULL-NOT: bwd_input
// INFER-NOT: _bwd
// INFER: sched.program "gpipe" stages 2 microbatches 1 forward_only
// MISSING: error: pipe-autodiff: from-schedule needs the sched.program that pipe-schedule emits; run pipe-schedule first
// MISSING-RC: error: pipe-recompute: from-schedule needs the sched.program that pipe-schedule emits; run pipe-schedule first
