// The training functions compiled by pipewave-compile compute the right
// gradients: examples/mlp.mlir linked with Inputs/grad_runtime.c, a
// one-process stand-in for the runtime that runs forward then backward
// (or backward_input then backward_weight with --split) for every stage and
// microbatch, accumulates the parameter gradients and compares them with
// central finite differences of the loss the forwards compute (tolerance:
// see the file's comment). Partitioned, microbatched, split and recomputing
// builds must all pass.

// RUN: cc -c -O2 -I%pipewave_src/runtime/include %S/Inputs/grad_runtime.c -o %t.grad.o

// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.s1 --stages 1 --runtime-lib=%t.grad.o
// RUN: %t.s1 | FileCheck %s --check-prefix=S1

// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.s2 --stages 2 --microbatches 2 --schedule 1f1b --runtime-lib=%t.grad.o
// RUN: %t.s2 | FileCheck %s --check-prefix=S2

// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.zb --stages 4 --microbatches 4 --schedule zb-h1 --runtime-lib=%t.grad.o
// RUN: %t.zb --split | FileCheck %s --check-prefix=ZB
// RUN: %t.zb | FileCheck %s --check-prefix=ZBFULL

// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.full --stages 2 --microbatches 2 --recompute=full --runtime-lib=%t.grad.o
// RUN: %t.full | FileCheck %s --check-prefix=S2
// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.sel --stages 2 --microbatches 4 --schedule gpipe --recompute=selective --matmul=loops --runtime-lib=%t.grad.o
// RUN: %t.sel | FileCheck %s --check-prefix=SEL

// The first layers' gradients vanish below what finite differences of an
// f32 loss resolve; 18 of the 33 checked entries are resolved (at least 10
// must be).
// S1: model mlp.mlir stages 1 microbatches 1
// S1: gradcheck: 33 entries, {{1[0-9]}} resolved, 0 mismatches
// S2: model mlp.mlir stages 2 microbatches 2
// S2: gradcheck: 33 entries, {{1[0-9]}} resolved, 0 mismatches
// ZB: model mlp.mlir stages 4 microbatches 4 split
// ZB: gradcheck: 33 entries, {{1[0-9]}} resolved, 0 mismatches
// ZBFULL: model mlp.mlir stages 4 microbatches 4
// ZBFULL: gradcheck: 33 entries, {{1[0-9]}} resolved, 0 mismatches
// SEL: model mlp.mlir stages 2 microbatches 4
// SEL: gradcheck: 33 entries, {{1[0-9]}} resolved, 0 mismatches
