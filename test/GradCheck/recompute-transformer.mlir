// pipe-recompute does not change the gradients: examples/transformer.mlir
// (two pre-LayerNorm blocks with causal multi-head attention and a GELU MLP,
// mean-squared-error loss) in f64, cut into 4 stages, is differentiated with
// the split backward after pipe-recompute with each policy and checked
// against central finite differences (settings of transformer.mlir: 16
// elements of every differentiated argument, inputs in [-0.3, 0.3), step and
// tolerance 1e-5). The largest error per argument, printed to 6 significant
// digits, depends on the backward's values: full and selective must print
// exactly what none prints.
//
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/transformer.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=4 --pipe-outline-stages \
// RUN:       --pipe-recompute='policy=none report=false' --pipe-autodiff=split=true \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 step=1e-5 tolerance=1e-5 split=true' \
// RUN:   | %gradcheck_run > %t.none
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/transformer.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=4 --pipe-outline-stages \
// RUN:       --pipe-recompute='policy=full report=false' --pipe-autodiff=split=true \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 step=1e-5 tolerance=1e-5 split=true' \
// RUN:   | %gradcheck_run > %t.full
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/transformer.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=4 --pipe-outline-stages \
// RUN:       --pipe-recompute='policy=selective report=false' --pipe-autodiff=split=true \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 step=1e-5 tolerance=1e-5 split=true' \
// RUN:   | %gradcheck_run > %t.selective
// RUN: FileCheck %s < %t.none
// RUN: diff %t.none %t.full
// RUN: diff %t.none %t.selective

// x (stage 0's argument 0) and y are data; the activations received by
// stages 1 to 3 are checked with the parameters (the f64 cut differs from
// the f32 one: the balanced partition weighs bytes).
// CHECK-NOT: main_stage0 arg 0 (
// CHECK: main_stage0 arg 1 (
// CHECK: main_stage1 arg 5 (16 of 4096 elements)
// CHECK: main_stage2 arg 10 (16 of 1024 elements)
// CHECK-NEXT: main_stage2 arg 11 (16 of 1024 elements)
// CHECK: main_stage3 arg 7 (16 of 4096 elements)
// CHECK-NEXT: {{^}}max error:
// CHECK-NEXT: PASS
