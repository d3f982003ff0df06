// A stage function that returns one of its arguments copies it into the
// caller's result buffer: on a calibrated device with a copy table
// (Inputs/sim-calibrated-device-v2.json: 100 MB/s, 1 us per op) that copy
// is costed.

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null | FileCheck %s

// Per microbatch (2 of the 4 samples):
// Stage 0: the add touches 192 B at 1 GB/s (0.192 us, no fixed cost:
//   fused), plus 10 us for the action: F = 10.192 us.
// Stage 1 returns (exp of its argument, the argument): the exp's 128 flops
//   at 100 MFLOP/s (1.28 us) and the copy of the 64 B argument at
//   100 MB/s (1 us + 0.64 us), plus 10 us: F = 12.92 us.
// CHECK:      stage function             F
// CHECK-NEXT: 0     main_stage0          1.0192e-05
// CHECK-NEXT: 1     main_stage1          1.292e-05

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = tosa.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b, %a : tensor<4x8xf32>, tensor<4x8xf32>
}
