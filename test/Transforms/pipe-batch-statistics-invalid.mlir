// RUN: pipewave-opt %s --pipe-partition=num-stages=1 --pipe-outline-stages --pipe-microbatch=microbatches=4 -verify-diagnostics

// With 4 microbatches of one row each, the unbiased variance has no
// degrees of freedom.
func.func @main(%x: tensor<4x3xf32> {pipe.name = "x"}, %r: tensor<1x3xf32> {pipe.name = "r", pipe.param, pipe.frozen}) -> tensor<1x3xf32> {
  // expected-error@+1 {{a microbatch of 'tensor<1x3xf32>' has one value per statistic; the unbiased variance needs more (fewer microbatches)}}
  %v = pipe.batch_mean %x axes [0] {correction = 1} : tensor<4x3xf32> -> tensor<1x3xf32>
  pipe.update_state %r, %v momentum 0.1 : tensor<1x3xf32>
  %m = pipe.batch_mean %x axes [0] : tensor<4x3xf32> -> tensor<1x3xf32>
  return %m : tensor<1x3xf32>
}
