// RUN: pipewave-opt %s --pipe-partition="num-stages=2 strategy=balanced" | FileCheck %s --check-prefix=FWD
// RUN: pipewave-opt %s --pipe-partition="num-stages=2 strategy=balanced backward=true" | FileCheck %s --check-prefix=TRAIN
// RUN: pipewave-compile %s --stages 2 --microbatches 1 --schedule gpipe --emit=pipe -o - | FileCheck %s --check-prefix=COMPILE
// RUN: pipewave-compile %s --stages 2 --microbatches 1 --schedule gpipe --inference --emit=pipe -o - | FileCheck %s --check-prefix=COMPILE-INF

// balanced with backward=true costs the training step. Forward costs: %a (a
// matmul of two data inputs) 2 units, %b and %c 1 each: the forward-only cut
// is [%a | %b %c]. In training %a has no backward (no operand depends on a
// parameter), %b's backward computes the gradient of w0 only (1 unit) and
// %c's those of %b and w1 (2 units): %a 2, %b 2, %c 3, so the cut moves to
// [%a %b | %c]. pipewave-compile costs the backward unless --inference.

// FWD:   %[[A:.*]] = tosa.matmul {{.*}}pipe.stage = 0
// FWD:   tosa.matmul %[[A]]{{.*}}pipe.stage = 1
// TRAIN: %[[A:.*]] = tosa.matmul {{.*}}pipe.stage = 0
// TRAIN: %[[B:.*]] = tosa.matmul %[[A]]{{.*}}pipe.stage = 0
// TRAIN: tosa.matmul %[[B]]{{.*}}pipe.stage = 1

// COMPILE-LABEL: func.func private @main_stage0(
// COMPILE-SAME:    pipe.name = "w0"
// COMPILE-NOT:     pipe.name = "w1"
// COMPILE-SAME:    ->
// COMPILE-INF-LABEL: func.func private @main_stage0(
// COMPILE-INF-NOT:   pipe.name = "w0"
// COMPILE-INF-SAME:  ->
func.func @main(%x: tensor<1x64x256xf32> {pipe.name = "x"},
                %d: tensor<1x256x128xf32> {pipe.name = "d"},
                %w0: tensor<1x128x128xf32> {pipe.param, pipe.name = "w0"},
                %w1: tensor<1x128x128xf32> {pipe.param, pipe.name = "w1"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.matmul %x, %d, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x128xf32>
  %b = tosa.matmul %a, %w0, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x128xf32>
  %c = tosa.matmul %b, %w1, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x128xf32>
  %s0 = tosa.reduce_sum %c {axis = 1 : i32} : (tensor<1x64x128xf32>) -> tensor<1x1x128xf32>
  %s1 = tosa.reduce_sum %s0 {axis = 2 : i32} : (tensor<1x1x128xf32>) -> tensor<1x1x1xf32>
  %e = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %loss = tosa.reshape %s1, %e : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %loss : tensor<f32>
}
