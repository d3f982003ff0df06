// The derived backward (sched-simulate before pipe-autodiff, from the
// forward alone) prices the adds pipe-autodiff makes when a value is used
// more than once: the terms of its gradient are summed, one element-wise
// add of the value's size per extra term, on the input side (I) for a
// value that depends on an activation argument and on the weight side (W)
// otherwise (Inputs/sim-calibrated-device-v2.json: element-wise ops at
// 1 GB/s without a fixed cost, 10 us per action).
//
// Per microbatch (2 of the 4 samples), each add reads two 2 x 8 terms and
// writes their sum: 3 x 64 B = 192 B, 0.192 us.
// - Stage 0: %x3 feeds two matmuls but is data (no gradient); %h is used
//   twice by one tosa.mul (h * h): one add, on W (the stage has no
//   activation argument). B = W = 12.897 + 0.192 = 13.089 us.
// - Stage 1: the activation %a feeds a matmul and the residual add (whose
//   gradient for it is dY itself): one add, on I. B = 14.570 + 0.192 =
//   14.762 us, I = 13.314 + 0.192 = 13.506 us; W (11.256 us) has no sum.
// (12.897, 14.570 and 13.314 us are the durations without the sums.)

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-calibrated-device-v2.json report=-" -o /dev/null | FileCheck %s

// CHECK:      stage function             F            B            I            W
// CHECK-NEXT: 0     main_stage0          {{[0-9.e-]+}} 1.3089e-05   1e-05        1.3089e-05
// CHECK-NEXT: 1     main_stage1          {{[0-9.e-]+}} 1.4762e-05   1.3506e-05   1.1256e-05

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<1x8x8xf32> {pipe.param, pipe.name = "w"},
                %v: tensor<1x8x8xf32> {pipe.param, pipe.name = "v"},
                %u: tensor<1x8x8xf32> {pipe.param, pipe.name = "u"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %h = tosa.matmul %x3, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %g = tosa.matmul %x3, %v, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %hh = tosa.mul %h, %h, %shift : (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  %a = tosa.add %hh, %g : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  pipe.split
  %k = tosa.matmul %a, %u, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %r = tosa.add %k, %a : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %r {axis = 1 : i32} : (tensor<1x4x8xf32>) -> tensor<1x1x8xf32>
  %t = tosa.reduce_sum %s {axis = 2 : i32} : (tensor<1x1x8xf32>) -> tensor<1x1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %t, %shape : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
