// sched-simulate on a calibrated device with the terms of format version 2
// (Inputs/sim-calibrated-device-v2.json): transcendental ops at their own
// FLOP rate, outer-axis reductions and transposes by their own tables,
// element-wise ops without a fixed cost (fused), and the optimizer step per
// parameter tensor.

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null | FileCheck %s

// A microbatch is 2 of the 4 samples: every op's bytes and flops halve.
// Stage 0, per microbatch:
//   transpose [4,2,4] -> [4,4,2] (moves the innermost axis: rows 8, cols 4,
//     the table's one point, 500 MB/s): 128 B, 1 us + 0.256 us
//   exp [4,4,2]: 128 flops at 100 MFLOP/s (more than 128 B at 1 GB/s):
//     1.28 us, no fixed cost (fused)
//   reduce_sum axis 1 of [4,4,2] (an outer axis: 2 GB/s): 80 B,
//     1 us + 0.04 us
//   mul [4,2] by the parameter [1,2] (and the 1-byte shift): 36.5 B at
//     1 GB/s: 0.0365 us
//   ops: 3.6125 us; F = 3.6125 + 10 (action) = 13.6125 us
//   The backward (no pipe.bwd: derived from these ops) differentiates only
//   the parameter: the mul's gradient for p (W), one mul (0.0365 us) and,
//   p being broadcast over the batch, the sum of that product over the
//   batch: reduce_sum axis 0 of [4,2] to [1,2] (outer: 40 B a batch, 20 B
//   a microbatch at 2 GB/s, 1.01 us); the
//   rest depends on data only. That sum adds to the accumulator itself
//   (the CPU lowering's accumulating backward;
//   sched-simulate-accumulate.mlir has one the runtime adds).
//   B = 1.0465 + 10 (action) = 11.0465 us, I = 10 us (the action),
//   W = 11.0465 us
//   optimizer: one tensor of 8 B: 10 us + 0.08 us
// Stage 1: reduce_sum axis 0 of [4,2] (outer: 20 B at 2 GB/s, 1.01 us),
//   reduce_sum axis 1 of [1,2] (innermost: 6 B at 1 GB/s, 1.006 us):
//   F = 12.016 us. Its input is the activation: each reduction's gradient
//   once (I): B = I = 2.016 + 10 = 12.016 us, W = 10 us (the action); no
//   parameter: no accumulation, no optimizer step.
// CHECK:      stage function             F            B            I            W            optimizer
// CHECK-NEXT: 0     main_stage0          1.36125e-05  1.10465e-05  1e-05        1.10465e-05  1.008e-05
// CHECK-NEXT: 1     main_stage1          1.2016e-05   1.2016e-05   1.2016e-05   1e-05        0

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %p: tensor<1x2xf32> {pipe.param, pipe.name = "p"}) -> tensor<f32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[4, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<4x2x4xf32>
  %t = tosa.transpose %x3 {perms = array<i32: 0, 2, 1>} : (tensor<4x2x4xf32>) -> tensor<4x4x2xf32>
  %e = tosa.exp %t : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %r = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4x4x2xf32>) -> tensor<4x1x2xf32>
  %r2 = tosa.reshape %r, %s2 : (tensor<4x1x2xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
  %y = tosa.mul %r2, %p, %shift : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<1xi8>) -> tensor<4x2xf32>
  pipe.split
  %s = tosa.reduce_sum %y {axis = 0 : i32} : (tensor<4x2xf32>) -> tensor<1x2xf32>
  %u = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x2xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %u, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
