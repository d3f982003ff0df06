// sched-simulate on a calibrated device whose parameters do not stay in
// cache (Inputs/sim-calibrated-device-v2.json with a coldOperand table:
// 1 GFLOP/s matmuls, 1 us per op, 10 us per action, Adam 10 us +
// 100 MB/s).

// A matmul reading a parameter adds its bytes at the coldOperand rate, also
// in a zero-bubble W that gets the parameter from the I (pipe-autodiff's
// split passes it on in the weight stash): the W of the generated functions
// costs what the derived backward's does.
// RUN: sed 's/"cores": 2,/"cores": 2, "coldOperand": [{ "bytes": 1e3, "bytesPerSecond": 1e8 }],/' %S/Inputs/sim-calibrated-device-v2.json > %t.cold.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%t.cold.json report=-" -o /dev/null > %t.derived
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-microbatch="microbatches=2" --pipe-autodiff="split=true" --pipe-insert-comm --pipe-schedule="schedule=gpipe" --sched-simulate="device=%t.cold.json report=-" -o /dev/null > %t.generated
// RUN: FileCheck %s < %t.derived
// RUN: FileCheck %s < %t.generated

// Stage 0 per microbatch (2 samples): x . w0 . w1, two 2 x 8 x 8 matmuls
// (256 FLOPs: 0.256 us + 1 us each) reading w0 and w1 (256 B each at
// 100 MB/s: 2.56 us each): F = 2.512 + 5.12 + 10 = 17.632 us. Its input is
// data, so the whole backward is W: dh = dY . w1^T (1.256 us, reads w1:
// 2.56 us), dw1 = h^T . dY and dw0 = x^T . dh (1.256 us each; both
// matmuls add to the accumulators themselves, so the runtime accumulates
// nothing) and the action: W = B = 3.768 + 2.56 + 10 = 16.328 us.
// CHECK:      stage function             F            B            I            W            optimizer
// CHECK-NEXT: 0     main_stage0          1.7632e-05   1.6328e-05   {{[0-9.e-]+}} 1.6328e-05   2.512e-05

// The footprint that competes for the cache is that of every rank on the
// node (3x all stages' parameter bytes: 3 x 2560 = 7680 B, above the
// table's 7000 B point, 100 MB/s); with one device per node it is this
// rank's share (3 x 1280 = 3840 B, below the 4000 B point, 1 GB/s): stage 0
// reads its 512 B of weights in 5.12 us, or in 0.512 us (F = 13.024 us; in
// the backward dY . w1^T reads w1 in 2.56 or 0.256 us: W = 16.328 or
// 14.024 us).
// Adam over parameters out of cache (optimizerCold, 10 MB/s, slower than
// the per-tensor 100 MB/s): 10 us + 256 B at 10 MB/s per tensor of stage 0,
// 10 us + 2048 B for stage 1.
// RUN: sed 's/"cores": 2,/"cores": 2, "coldOperand": [{ "bytes": 4000, "bytesPerSecond": 1e9 }, { "bytes": 7000, "bytesPerSecond": 1e8 }], "optimizerCold": [{ "bytes": 1e3, "bytesPerSecond": 1e7 }],/' %S/Inputs/sim-calibrated-device-v2.json > %t.node.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%t.node.json report=-" -o /dev/null | FileCheck %s --check-prefix=NODE
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%t.node.json devices-per-node=1 report=-" -o /dev/null | FileCheck %s --check-prefix=ALONE
// NODE:       stage function             F            B            I            W            optimizer
// NODE-NEXT:  0     main_stage0          1.7632e-05   1.6328e-05   1e-05        1.6328e-05   7.12e-05
// NODE-NEXT:  1     main_stage1          {{[0-9.e-]+}} {{[0-9.e-]+}} {{[0-9.e-]+}} {{[0-9.e-]+}} 0.0002148
// ALONE:      stage function             F            B            I            W            optimizer
// ALONE-NEXT: 0     main_stage0          1.3024e-05   1.4024e-05   1e-05        1.4024e-05   7.12e-05

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w0: tensor<1x8x8xf32> {pipe.param, pipe.name = "w0"},
                %w1: tensor<1x8x8xf32> {pipe.param, pipe.name = "w1"},
                %w2: tensor<1x8x64xf32> {pipe.param, pipe.name = "w2"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %h = tosa.matmul %x3, %w0, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %h2 = tosa.matmul %h, %w1, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  pipe.split
  %y = tosa.matmul %h2, %w2, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x64xf32>
  %s = tosa.reduce_sum %y {axis = 1 : i32} : (tensor<1x4x64xf32>) -> tensor<1x1x64xf32>
  %t = tosa.reduce_sum %s {axis = 2 : i32} : (tensor<1x1x64xf32>) -> tensor<1x1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %t, %shape : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
