// sched-simulate on a calibrated device (Inputs/sim-calibrated-device.json:
// 1 us per op, 10 us per action, matmuls at 1 GFLOP/s, 1 GB/s for
// element-wise ops and reductions, an Adam step of 10 us + 100 MB/s).

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device.json report=-" -o /dev/null | FileCheck %s

// The same device by name, from the calibration cache.
// RUN: rm -rf %t.cache && mkdir -p %t.cache/devices
// RUN: cp %S/Inputs/sim-calibrated-device.json %t.cache/devices/lab.json
// RUN: env PIPEWAVE_CACHE_DIR=%t.cache pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=lab report=-" -o /dev/null | FileCheck %s

// On one core the two ranks share it: every duration doubles.
// RUN: sed 's/"cores": 2/"cores": 1/' %S/Inputs/sim-calibrated-device.json > %t.one-core.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%t.one-core.json report=-" -o /dev/null | FileCheck %s --check-prefix=SHARED

// The stage functions compute the batch of 4; a microbatch is 2 samples.
// Stage 0 is one matmul [1, 4, 8] x [1, 8, 8], 512 FLOPs for the batch: per
// microbatch M = 2 (M is the sample dimension), 256 FLOPs at 1 GFLOP/s =
// 0.256 us, plus 1 us for the op and 10 us for the action: F = 11.256 us.
// With no pipe.bwd function the backward is derived from the forward ops:
// the input is data, so only the weight's gradient x^T . dY: the 8 x 2 x 8
// matmul (256 FLOPs: 0.256 us, + 1 us) reading x transposed (the transpose
// is folded into the matmul: free, and without a matmulKernels table the
// layout costs what nn does); W = B = 1.256 + 10 = 11.256 us, I = 10 us
// (the action).
// Stage 1: the add of 4x8 and 1x8 touches 288 B (144 B a microbatch:
// 0.144 us), the reductions 160 and 36 B (0.08 and 0.018 us), plus 1 us
// each and 10 us for the action: F = 13.242 us. Its backward: the add
// passes dY to the activation unchanged (nothing to compute) and sums it
// over the batch for the broadcast b (W: a reduction of 4x8 to 1x8, 160 B
// touched a batch, 80 B a microbatch: 0.08 + 1 us), and each reduction
// costs its forward once (I): I = 2.098 + 10 = 12.098 us, W = 1.08 + 10 =
// 11.08 us, B = 3.178 + 10 = 13.178 us. The Adam steps: 10 us + 256 B
// (32 B) at 100 MB/s.
// CHECK:      sched-simulate: "gpipe", 2 stages on 2 ranks, 2 microbatches, on calibrated-unit
// CHECK:      stage function             F            B            I            W            optimizer
// CHECK-NEXT: 0     main_stage0          1.1256e-05   1.1256e-05   1e-05        1.1256e-05   1.256e-05
// CHECK-NEXT: 1     main_stage1          1.3242e-05   1.3178e-05   1.2098e-05   1.108e-05    1.032e-05

// SHARED:      sched-simulate: "gpipe", 2 stages on 2 ranks, 2 microbatches, on calibrated-unit
// SHARED:      oversubscribed: 2 ranks on 1 cores, every duration stretched by 2

// Parameters not in cache (a coldOperand table: 100 MB/s at every
// footprint): the forward matmul reads w, 256 B, in 2.56 us more, a
// microbatch or the whole batch alike: F = 13.816 us. The backward reads
// no parameter (dW = x^T . dY); stage 1 has no matmul.
// RUN: sed 's/"cores": 2,/"cores": 2, "coldOperand": [{ "bytes": 1e3, "bytesPerSecond": 1e8 }],/' %S/Inputs/sim-calibrated-device.json > %t.cold.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%t.cold.json report=-" -o /dev/null | FileCheck %s --check-prefix=COLD
// COLD:      stage function             F            B            I            W            optimizer
// COLD-NEXT: 0     main_stage0          1.3816e-05   1.1256e-05   1e-05        1.1256e-05   1.256e-05
// COLD-NEXT: 1     main_stage1          1.3242e-05   1.3178e-05   1.2098e-05   1.108e-05    1.032e-05

// Transposed layouts (a matmulKernels table where "tn-small" takes 3x
// "nn-small"): the weight gradient x^T . dY reads x transposed, so its
// 0.256 us of FLOPs take 0.768 us: B = W = 11.768 us; F is nn.
// RUN: sed 's/"cores": 2,/"cores": 2, "matmulKernels": [{ "class": "nn-small", "m": 32, "n": 64, "k": 64, "vectorSeconds": 2e-3, "blasSeconds": 1e-3, "kernel": "blas" }, { "class": "tn-small", "m": 32, "n": 64, "k": 64, "vectorSeconds": 4e-3, "blasSeconds": 3e-3, "kernel": "blas" }],/' %S/Inputs/sim-calibrated-device.json > %t.layout.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%t.layout.json report=-" -o /dev/null | FileCheck %s --check-prefix=LAYOUT
// LAYOUT:      stage function             F            B            I            W            optimizer
// LAYOUT-NEXT: 0     main_stage0          1.1256e-05   1.1768e-05   1e-05        1.1768e-05   1.256e-05

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<1x8x8xf32> {pipe.param, pipe.name = "w"},
                %b: tensor<1x8xf32> {pipe.param, pipe.name = "b"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[4, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %m = tosa.matmul %x3, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %m2 = tosa.reshape %m, %s2 : (tensor<1x4x8xf32>, !tosa.shape<2>) -> tensor<4x8xf32>
  pipe.split
  %c = tosa.add %m2, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %c {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %t = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %t, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
