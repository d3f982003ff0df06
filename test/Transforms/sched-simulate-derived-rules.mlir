// The derived backward (sched-simulate before pipe-autodiff) of a sub with
// a broadcast parameter and of an erf, as the gradient rules make them
// (Inputs/sim-calibrated-device-v2.json: 1 us per op but element-wise ops,
// 10 us per action, element-wise ops at 1 GB/s, transcendental ops at
// 100 MFLOP/s, outer-axis reductions at 2 GB/s, accumulation 1 us +
// 100 MB/s).
//
// Stage 0 per microbatch (2 of the 4 samples): y = x - p (p: 1x8,
// broadcast over the batch), e = erf(y). Only p is differentiated:
// - erf: dy = de * 2/sqrt(pi) * exp(-y^2). The exp of the 2x8 microbatch,
//   8 FLOPs an element at the transcendental rate: 128 FLOPs, 1.28 us;
//   and the arithmetic, 3 FLOPs an element, bound by its 128 B at 1 GB/s:
//   0.128 us.
// - sub: dp = -sum over the batch of dy: a reduce_sum of 4x8 to 1x8 (160 B
//   touched a batch, 80 B a microbatch at 2 GB/s: 0.04 us + 1 us) and the
//   negation of the 1x8 sum, whose size does not change with the
//   microbatch (64 B at 1 GB/s: 0.064 us).
// - The negation comes after the sum, so the accumulating backward cannot
//   add dp to its accumulator in the sum (pipe-accumulate-gradients): the
//   runtime adds it, in one microbatch of the 2 (32 B: 1 us + 0.32 us at
//   100 MB/s; 0.66 us on average).
// W = B = 1.28 + 0.128 + 1.04 + 0.064 + 0.66 + 10 (action) = 13.172 us;
// I = 10 us (the action; x is data).

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null | FileCheck %s

// CHECK:      stage function             F            B            I            W
// CHECK-NEXT: 0     main_stage0          {{[0-9.e-]+}} 1.3172e-05   1e-05        1.3172e-05

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %p: tensor<1x8xf32> {pipe.param, pipe.name = "p"}) -> tensor<f32> {
  %y = tosa.sub %x, %p : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %e = tosa.erf %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %s = tosa.reduce_sum %e {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %u = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %u, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
