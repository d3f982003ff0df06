// schedule=auto simulates the candidate schedules on the test device of
// Inputs/sim-unit-device.json (1 GFLOP/s, 1 GB/s links without latency) and
// keeps the fastest that fits in memory. The model is the one of
// sched-simulate.mlir: two stages, F = 320 and 72 ns for the batch of 4,
// B (derived from the forward ops) 0 and 72 ns.
// Only gpipe, 1f1b and zb-h1 run two stages on two ranks or more.

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%S/Inputs/sim-unit-device.json" --sched-verify 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%S/Inputs/sim-unit-device.json memory=300B" --sched-verify --sched-simulate="device=%S/Inputs/sim-unit-device.json memory=300B report=-" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%S/Inputs/sim-unit-device.json memory=200B" --sched-verify 2>&1 | FileCheck %s --check-prefix=RECOMPUTE
// RUN: not pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%S/Inputs/sim-unit-device.json memory=100B" 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%S/Inputs/sim-unit-device.json microbatches=2" --sched-verify 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-microbatch="microbatches=2" --pipe-autodiff --pipe-insert-comm --pipe-schedule="schedule=auto device=%S/Inputs/sim-unit-device.json" --sched-verify 2>&1 | FileCheck %s --check-prefix=COMPILED

// With 1000 B per device everything fits; ZB-H1 with 4 microbatches wins.
// FAST:      remark: pipe-schedule: schedule=auto chose zb-h1 microbatches=4
// FAST-NEXT:   18 candidates simulated on unit with 1000 B per device, 18 fit; the fastest that fits wins
// FAST-NEXT:   2 stages, fixed by the partition; microbatches: the divisors of the batch 4 up to 64
// FAST-NEXT:   recompute: none (the stash of every stage) or full (the stage inputs only; the backward runs the forward again)
// FAST-NEXT:     schedule                   M recompute ranks    step time   bubble  peak memory  fits
// FAST-NEXT:   * zb-h1                      4 none          2      0.43 us   0.4642        306 B   yes
// FAST-NEXT:     1f1b                       4 none          2      0.45 us   0.4833        201 B   yes
// FAST:        1f1b                       1 full          2      1.12 us   0.6182        256 B   yes
// FAST:      sched.program "zb-h1" stages 2 microbatches 4 {

// With 300 B ZB-H1 (306 B) no longer fits: 1F1B with 4 microbatches. By
// hand: F = 80 / 18 ns, B = 0 / 18 ns per microbatch (stage 0 has nothing
// to differentiate), 32 ns per message, 1 ns for the optimizer. Rank 1 runs
// F0 [112, 130], B0 [130, 148], F1 [192, 210], B1 [210, 228], F2 [292, 310],
// B2 [310, 328], F3 [372, 390], B3 [390, 408]; rank 0 runs F0 [0, 80], F1
// [80, 160], B0 at 180, F2 [180, 260], B1 at 260, F3 [260, 340], then B2 at
// 360 and B3 at 440, when the last gradient arrives. The agreement on
// non-finite values (8 B all-reduced: 8 ns) ends at 448, rank 1's optimizer
// at 449. The last stage holds
// the weights, their gradients and moments (128 B) and one microbatch
// (73 B): 201 B.
// BUDGET:      remark: pipe-schedule: schedule=auto chose 1f1b microbatches=4
// BUDGET:      * 1f1b                       4 none          2      0.45 us   0.4833        201 B   yes
// BUDGET:      sched-simulate: "1f1b", 2 stages on 2 ranks, 4 microbatches, on unit (300 B per device)
// BUDGET-NEXT: step time: 4.49e-07 s (0.45 us)

// With 200 B only full recompute (the stage inputs stashed) fits.
// RECOMPUTE: remark: pipe-schedule: schedule=auto chose 1f1b microbatches=4 with full recompute (run pipe-recompute{policy=full} before pipe-autodiff)
// RECOMPUTE: * 1f1b                       4 full          2      0.72 us   0.4097        192 B   yes
// RECOMPUTE: sched.program "1f1b" stages 2 microbatches 4 {

// NONE:      error: pipe-schedule: schedule=auto: no candidate fits in 100 B per device
// NONE-NEXT:   18 candidates simulated on unit with 100 B per device, 0 fit; the fastest that fits wins
// NONE-NOT:  *

// A fixed microbatch count leaves the schedules and the recompute policy.
// FIXED:      remark: pipe-schedule: schedule=auto chose zb-h1 microbatches=2
// FIXED-NEXT:   6 candidates simulated on unit with 1000 B per device, 6 fit; the fastest that fits wins
// FIXED-NEXT:   2 stages, fixed by the partition; microbatches=2 (the option)

// After pipe-microbatch and pipe-autodiff the microbatch count and the
// stash (the pipe.fwd functions) are fixed; the backward is costed from the
// pipe.bwd functions.
// COMPILED:      remark: pipe-schedule: schedule=auto chose
// COMPILED-NEXT:   3 candidates simulated on unit with 1000 B per device, 3 fit; the fastest that fits wins
// COMPILED-NEXT:   2 stages, fixed by the partition; microbatches=2 (set by pipe-microbatch)
// COMPILED-NEXT:   recompute: as compiled (the stash of the pipe.fwd functions)
// COMPILED:      sched.program "{{.*}}" stages 2 microbatches 2 {

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<1x8xf32> {pipe.param, pipe.name = "w"}) -> tensor<f32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.add %a, %w : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
