// Gradient check of the whole examples/transformer.mlir (two pre-LayerNorm
// blocks with causal multi-head attention and a GELU MLP, final LayerNorm,
// mean-squared-error loss), converted to f64: as one stage, and cut into two
// stages (the two activations received by stage 1 are checked too) with the
// split backward (bwd_input then bwd_weight).
//
// 16 evenly spread elements of every parameter are checked; inputs are
// uniform in [-0.3, 0.3). The network is smooth, so the step is 1e-5 (the
// truncation error is O(h^2)). The tolerance is 1e-5 rather than 1e-6:
// stage 0 returns two 4x8x32 activations, so the checked quantity L sums
// 2048 products and the rounding error of (L(x + h) - L(x - h)) / 2h reaches
// ~2e-9 in absolute terms, against gradients as small as 1e-3 (the floor of
// the relative error). A wrong rule gives errors of order 1.
//
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/transformer.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=1 --pipe-outline-stages --pipe-autodiff \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 step=1e-5 tolerance=1e-5' \
// RUN:   | %gradcheck_run | FileCheck %s --check-prefix=ONE
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/transformer.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=2 --pipe-outline-stages --pipe-autodiff=split=true \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 step=1e-5 tolerance=1e-5 split=true' \
// RUN:   | %gradcheck_run | FileCheck %s --check-prefix=TWO

// One stage: x is argument 0 and y argument 29 (data); the 28 parameters are
// arguments 1 to 28.
// ONE-NOT: main_stage0 arg 0 (
// ONE: main_stage0 arg 1 (16 of 32 elements)
// ONE-COUNT-26: main_stage0 arg {{([2-9]|1[0-9]|2[0-7])}} (
// ONE-NEXT: main_stage0 arg 28 (16 of 32 elements)
// ONE-NOT: main_stage0 arg 29 (
// ONE: PASS

// Two stages: stage 0 has x and 14 parameters; stage 1 has 14 parameters, y
// (argument 14) and the two activations from stage 0 (arguments 15 and 16).
// TWO-NOT: main_stage0 arg 0 (
// TWO-COUNT-14: main_stage0 arg {{([1-9]|1[0-4])}} (
// TWO-COUNT-14: main_stage1 arg {{([0-9]|1[0-3])}} (
// TWO-NEXT: main_stage1 arg 15 (16 of 1024 elements)
// TWO-NEXT: main_stage1 arg 16 (16 of 1024 elements)
// TWO: PASS
