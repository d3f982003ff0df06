// Transcendental ops at their function's own rate: the model of
// sched-simulate-derived-rules.mlir on the same device with a transcendental
// table (Inputs/sim-calibrated-device-transcendental.json: erf at 50
// MFLOP/s, exp at 200 MFLOP/s, every other function at the 100 MFLOP/s of
// transcendentalFlopsPerSecond).
//
// Per microbatch (2x8 = 16 elements):
// - F's erf: 160 FLOPs (10 an element) at 50 MFLOP/s, 3.2 us, 1.6 us more
//   than at 100 MFLOP/s: F = 11.744 + 1.6 = 13.344 us (the sub, the erf at
//   100 MFLOP/s and the 10 us action make the 11.744).
// - B's derivative of erf evaluates exp(-y^2): 128 FLOPs (8 an element) at
//   exp's own 200 MFLOP/s, 0.64 us, 0.64 us less than the 1.28 us of
//   sched-simulate-derived-rules.mlir: B = W = 13.172 - 0.64 = 12.532 us.

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null | FileCheck %s --check-prefix=RATE
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-transcendental.json report=-" -o /dev/null | FileCheck %s --check-prefix=OWN

// RATE:      stage function             F            B            I            W
// RATE-NEXT: 0     main_stage0          1.1744e-05 1.3172e-05   1e-05        1.3172e-05

// OWN:      stage function             F            B            I            W
// OWN-NEXT: 0     main_stage0          1.3344e-05 1.2532e-05   1e-05        1.2532e-05

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
