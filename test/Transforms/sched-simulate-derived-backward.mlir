// Before pipe-autodiff, sched-simulate (and schedule=auto, pipe-plan)
// derives each stage's backward from its forward ops as pipe-autodiff's
// gradient rules would generate it, on the calibrated device of
// Inputs/sim-calibrated-device-v2.json (1 GFLOP/s matmuls, transposes at
// 500 MB/s, 1 us per op and 10 us per action), and compares it with the
// functions pipe-autodiff generates.

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null > %t.derived
// RUN: FileCheck %s < %t.derived
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-microbatch="microbatches=2" --pipe-autodiff="split=true" --pipe-insert-comm --pipe-schedule="schedule=gpipe" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null > %t.generated
// RUN: cat %t.derived %t.generated | FileCheck %s --check-prefix=SAME

// A microbatch is 2 of the 4 samples. Every transpose of a matmul operand
// in the backward is folded into its matmul on a calibrated device (free;
// without a matmulKernels table the layout costs what nn does).
// Stage 0, x . w0 ([1, 4, 8] x [1, 8, 8]): F = 256 FLOPs (0.256 us) + 1 us
//   + 10 us = 11.256 us. Its input is data: the backward is the weight
//   gradient x^T . dY alone, the 8 x 2 x 8 matmul (256 FLOPs: 1.256 us),
//   which adds to w0's accumulator itself (the CPU lowering's accumulating
//   backward): B = W = 1.256 + 10 = 11.256 us; I = 10 us (the action).
// Stage 1, h . w1 ([1, 4, 8] x [1, 8, 4]) and two reductions: F = 1.128 +
//   1.02 (outer, 40 B at 2 GB/s) + 1.01 (innermost, 10 B at 1 GB/s) + 10 =
//   13.158 us. Its input is the activation:
//   I: dh = dY . w1^T: the 2 x 4 x 8 matmul (128 FLOPs: 1.128 us); each
//      reduction's gradient once (1.02 + 1.01 us): I = 3.158 + 10 =
//      13.158 us;
//   W: dw1 = h^T . dY: the 8 x 2 x 4 matmul (1.128 us), adding to the
//      accumulator: W = 1.128 + 10 = 11.128 us;
//   B = 3.158 + 1.128 + 10 = 14.286 us.
// CHECK:      backward: derived from the forward ops as pipe-autodiff would generate it (no pipe.bwd functions)
// CHECK:      stage function             F            B            I            W
// CHECK-NEXT: 0     main_stage0          1.1256e-05   1.1256e-05   1e-05        1.1256e-05
// CHECK-NEXT: 1     main_stage1          1.3158e-05   1.4286e-05   1.3158e-05   1.1128e-05

// The generated functions: stage 0's B and W and stage 1's W are the same
// (its I differs: pipe.bwd_input also returns what pipe.bwd_weight reads).
// SAME:      backward: derived from the forward ops
// SAME:      0     main_stage0          [[F0:[0-9.e-]+]] [[B0:[0-9.e-]+]] {{[0-9.e-]+}} [[W0:[0-9.e-]+]]
// SAME-NEXT: 1     main_stage1          {{[0-9.e-]+}} {{[0-9.e-]+}} {{[0-9.e-]+}} [[W1:[0-9.e-]+]]
// SAME:      backward: the pipe.bwd, pipe.bwd_input and pipe.bwd_weight functions
// SAME:      0     main_stage0          [[F0]] [[B0]] {{[0-9.e-]+}} [[W0]]
// SAME-NEXT: 1     main_stage1          {{[0-9.e-]+}} {{[0-9.e-]+}} {{[0-9.e-]+}} [[W1]]

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w0: tensor<1x8x8xf32> {pipe.param, pipe.name = "w0"},
                %w1: tensor<1x8x4xf32> {pipe.param, pipe.name = "w1"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %h = tosa.matmul %x3, %w0, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  pipe.split
  %y = tosa.matmul %h, %w1, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  %s = tosa.reduce_sum %y {axis = 1 : i32} : (tensor<1x4x4xf32>) -> tensor<1x1x4xf32>
  %t = tosa.reduce_sum %s {axis = 2 : i32} : (tensor<1x1x4xf32>) -> tensor<1x1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %t, %shape : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
