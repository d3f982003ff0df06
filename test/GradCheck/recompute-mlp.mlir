// pipe-recompute does not change the gradients: examples/mlp.mlir (8 linear
// layers with ReLU, mean-squared-error loss) in f64, cut into 4 stages, is
// differentiated after pipe-recompute with each policy and checked against
// central finite differences (settings of mlp.mlir: 16 elements of every
// differentiated argument, inputs in [-0.3, 0.3), tolerance 1e-5). The
// largest error per argument, printed to 6 significant digits, depends on
// the backward's values: full and selective must print exactly what none
// prints.
//
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/mlp.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=4 --pipe-outline-stages \
// RUN:       --pipe-recompute='policy=none report=false' --pipe-autodiff \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 tolerance=1e-5' \
// RUN:   | %gradcheck_run > %t.none
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/mlp.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=4 --pipe-outline-stages \
// RUN:       --pipe-recompute='policy=full report=false' --pipe-autodiff \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 tolerance=1e-5' \
// RUN:   | %gradcheck_run > %t.full
// RUN: sed 's/f32/f64/g' %pipewave_src/examples/mlp.mlir \
// RUN:   | pipewave-opt --pipe-partition=num-stages=4 --pipe-outline-stages \
// RUN:       --pipe-recompute='policy=selective report=false' --pipe-autodiff \
// RUN:       --test-pipe-gradcheck='samples=16 lo=-0.3 hi=0.3 tolerance=1e-5' \
// RUN:   | %gradcheck_run > %t.selective
// RUN: FileCheck %s < %t.none
// RUN: diff %t.none %t.full
// RUN: diff %t.none %t.selective

// 4 stages: x is stage 0's argument 0 (data, no gradient); the activation
// each of stages 1 to 3 receives is checked with the parameters.
// CHECK-NOT: main_stage0 arg 0 (
// CHECK: main_stage0 arg 1 (
// CHECK: main_stage1 arg 4 (16 of 2048 elements)
// CHECK: main_stage2 arg 3 (16 of 2048 elements)
// CHECK: main_stage3 arg 6 (16 of 2048 elements)
// CHECK: PASS
