// RUN: pipewave-opt %s --pipe-partition="num-stages=2 strategy=uniform" | FileCheck %s --check-prefix=UNIFORM
// RUN: pipewave-opt %s --pipe-partition="num-stages=2 strategy=balanced" | FileCheck %s --check-prefix=BALANCED

// The cost model prices convolutions and pools, so balanced partitioning of
// a CNN block sees them. The 3x3 convolution (8 -> 8 channels, 16x16, pad 1)
// costs 2 * 2048 * 72 + 2048 = 296960 FLOPs (5.9 us at 50 GFLOP/s, against
// 0.9 us for its ~19 KB); the 2x2 max pool is memory-bound (40 KB, 2.0 us)
// and each tanh on 512 elements ~0.2 us. Uniform cuts by count (4 + 4 ops);
// balanced puts the convolution alone in stage 0 (5.9 us against 3.2 us).

// UNIFORM-LABEL: func.func @main
// UNIFORM:      tosa.conv2d {{.*}} {{{.*}}pipe.stage = 0 : i64
// UNIFORM-NEXT: tosa.max_pool2d {{.*}} {{{.*}}pipe.stage = 0 : i64
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}

// BALANCED-LABEL: func.func @main
// BALANCED:      tosa.conv2d {{.*}} {{{.*}}pipe.stage = 0 : i64
// BALANCED-NEXT: tosa.max_pool2d {{.*}} {{{.*}}pipe.stage = 1 : i64
// BALANCED-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
func.func @main(%x: tensor<1x16x16x8xf32> {pipe.name = "x"},
                %w: tensor<8x3x3x8xf32> {pipe.name = "w", pipe.param},
                %b: tensor<8xf32> {pipe.name = "b", pipe.param})
    -> tensor<1x8x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x16x16x8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x8xf32>
  %p = tosa.max_pool2d %c {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x16x16x8xf32>) -> tensor<1x8x8x8xf32>
  %t0 = tosa.tanh %p : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %t1 = tosa.tanh %t0 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %t2 = tosa.tanh %t1 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %t3 = tosa.tanh %t2 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %t4 = tosa.tanh %t3 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %t5 = tosa.tanh %t4 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %t5 : tensor<1x8x8x8xf32>
}
