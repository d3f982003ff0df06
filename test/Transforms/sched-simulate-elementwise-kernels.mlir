// sched-simulate on a GPU's calibration (Inputs/sim-calibrated-device-gpu.json:
// elementwiseKernelSeconds 5 us, fusedOpSeconds 0): an element-wise op whose
// users are all element-wise (through reshapes) is fused into them and pays
// no fixed cost; one that a matmul or the return uses ends a fused group, a
// kernel of its own, and pays 5 us.

// RUN: pipewave-opt %s --pipe-partition="num-stages=1" --pipe-outline-stages --pipe-schedule="schedule=gpipe microbatches=1" --sched-simulate="device=%S/Inputs/sim-calibrated-device-gpu.json report=-" -o /dev/null | FileCheck %s

// exp [2,4]: 64 flops at 100 MFLOP/s, fused into the mul: 0.64 us
// mul [2,4] (and the 1-byte shift): 97 B at 1 GB/s, used by the matmul
//   through a reshape: 5 us + 0.097 us
// matmul [1,2,4] x [1,4,4]: 64 flops at 1 GFLOP/s: 1 us + 0.064 us
// abs [1,2,4]: 64 B at 1 GB/s, returned: 5 us + 0.064 us
// F = 11.865 us + 10 us (the action) = 21.865 us
// CHECK:      stage function             F
// CHECK-NEXT: 0     main_stage0          2.1865e-05

func.func @main(%x: tensor<2x4xf32> {pipe.name = "x"},
                %w: tensor<1x4x4xf32> {pipe.param, pipe.name = "w"}) -> tensor<1x2x4xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %a = tosa.exp %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = tosa.mul %a, %a, %shift : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<1xi8>) -> tensor<2x4xf32>
  %b3 = tosa.reshape %b, %s3 : (tensor<2x4xf32>, !tosa.shape<3>) -> tensor<1x2x4xf32>
  %m = tosa.matmul %b3, %w, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
  %c = tosa.abs %m : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %c : tensor<1x2x4xf32>
}
