// Which parameter gradients cost the runtime an accumulation in
// sched-simulate's B and W (Inputs/sim-calibrated-device-v2.json: 1 GFLOP/s
// matmuls, 1 us per op, 10 us per action, element-wise ops at 1 GB/s
// without a fixed cost, accumulation 1 us + 100 MB/s). The CPU lowering
// gives the backward an accumulating variant (pipe-accumulate-gradients)
// in which a gradient made by one matmul (or a sum over a broadcast
// dimension) adds to its accumulator itself; a gradient summed from two
// uses (w here) is added by the runtime, M - 1 of M microbatches.

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null | FileCheck %s --check-prefix=DERIVED
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-microbatch="microbatches=2" --pipe-autodiff="split=true" --pipe-insert-comm --pipe-schedule="schedule=gpipe" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null | FileCheck %s --check-prefix=GENERATED

// Stage 0 per microbatch (2 samples), input data: five 2 x 8 x 8 matmuls
// (256 FLOPs each: 1.256 us): dv = g^T . dk, dg = dk . v^T, h^T . dg,
// dh = dg . w^T, x^T . dh; dw = h^T . dg + x^T . dh (a 768 B add of w's
// two terms: 0.768 us, in the derived backward too). The runtime
// accumulates w's gradient (256 B: 1 us + 2.56 us, for one microbatch of
// the 2: 1.78 us on average) and not v's (its matmul adds to the
// accumulator):
//   B = W = 5 x 1.256 + 0.768 + 1.78 + 10 = 18.828 us
// (with v's accumulation too, each would be 1.78 us more).
// DERIVED:        stage function             F            B            I            W
// DERIVED-NEXT:   0     main_stage0          {{[0-9.e-]+}} 1.8828e-05   1e-05        1.8828e-05
// GENERATED:      stage function             F            B            I            W
// GENERATED-NEXT: 0     main_stage0          {{[0-9.e-]+}} 1.8828e-05   {{[0-9.e-]+}} 1.8828e-05

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<1x8x8xf32> {pipe.param, pipe.name = "w"},
                %v: tensor<1x8x8xf32> {pipe.param, pipe.name = "v"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %h = tosa.matmul %x3, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %g = tosa.matmul %h, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %k = tosa.matmul %g, %v, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  pipe.split
  %s = tosa.reduce_sum %k {axis = 1 : i32} : (tensor<1x4x8xf32>) -> tensor<1x1x8xf32>
  %t = tosa.reduce_sum %s {axis = 2 : i32} : (tensor<1x1x8xf32>) -> tensor<1x1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %t, %shape : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
