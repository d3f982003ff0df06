// Gradient check of the whole examples/mlp.mlir (8 linear layers with ReLU,
// mean-squared-error loss), converted to f64: as one stage, and cut into two
// stages (the activation received by stage 1 is checked too) with the split
// backward (bwd_input then bwd_weight).
//
// 16 evenly spread elements of every parameter (16384 in the largest) are
// checked; inputs are uniform in [-0.3, 0.3) to keep the activations O(1).
// The network is piecewise linear, so central differences are exact away
// from the ReLU kinks: the step (1e-6) only has to be small enough not to
// cross one. The tolerance is 1e-5 rather than 1e-6 because the loss sums
// thousands of terms, so the rounding error of L(x + h) - L(x - h) divided by
// 2h reaches ~1e-9 in absolute terms, against gradients as small as 1e-3 (the
// floor of the relative error). A wrong rule gives errors of order 1.
//
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/mlp.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=1 --pipe-outline-stages --pipe-autodiff \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 tolerance=1e-5' \
// RUN:   | %gradcheck_run | FileCheck %s --check-prefix=ONE
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/mlp.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=2 --pipe-outline-stages --pipe-autodiff=split=true \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 tolerance=1e-5 split=true' \
// RUN:   | %gradcheck_run | FileCheck %s --check-prefix=TWO

// One stage: x is argument 0 and y argument 17 (data, no gradient); the 16
// parameters are arguments 1 to 16.
// ONE-NOT: main_stage0 arg 0 (
// ONE: main_stage0 arg 1 (16 of 8192 elements)
// ONE-COUNT-14: main_stage0 arg {{([2-9]|1[0-5])}} (
// ONE-NEXT: main_stage0 arg 16 (8 of 8 elements)
// ONE-NOT: main_stage0 arg 17 (
// ONE: PASS

// Two stages: stage 0 has x and 7 parameters; stage 1 has 9 parameters, y
// (argument 9) and the activation from stage 0 (argument 10).
// TWO-NOT: main_stage0 arg 0 (
// TWO-COUNT-7: main_stage0 arg {{[1-7]}} (
// TWO-COUNT-9: main_stage1 arg {{[0-8]}} (
// TWO-NEXT: main_stage1 arg 10 (16 of 2048 elements)
// TWO: PASS
