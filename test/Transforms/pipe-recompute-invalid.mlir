// RUN: pipewave-opt %s -split-input-file --pipe-recompute=policy=selective -verify-diagnostics

// pipe-recompute runs before pipe-autodiff: a differentiated stage is an
// error.

// expected-error@+1 {{pipe-recompute: stage function was already differentiated; run pipe-recompute before pipe-autodiff}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {pipe.stage = 0 : i64, pipe.fwd = @s_fwd, pipe.bwd = @s_bwd} {
  %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func private @s_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
func.func private @s_bwd(%x: tensor<4xf32>, %t: tensor<4xf32>, %dt: tensor<4xf32>) -> tensor<4xf32>

// -----

// The stash is computed as pipe-autodiff computes it, so a stage that
// pipe-autodiff cannot differentiate is reported with its diagnostics.

func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {pipe.stage = 0 : i64} {
  // expected-error@+1 {{pipe-autodiff: no gradient rule for 'tosa.floor'}}
  %f = tosa.floor %x : (tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

// expected-error@+1 {{pipe-autodiff: argument #0 of stage function has type 'tensor<?xf32>'; stage arguments must be statically shaped tensors}}
func.func private @s(%x: tensor<?xf32>) -> tensor<?xf32>
    attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<?xf32>) -> tensor<?xf32>
  return %t : tensor<?xf32>
}
