// RUN: pipewave-opt %s -split-input-file --pipe-autodiff -verify-diagnostics

func.func private @s(%x: tensor<2x3xf32>) -> tensor<2x1xf32> attributes {pipe.stage = 0 : i64} {
  // expected-error@+1 {{pipe-autodiff: no gradient rule for 'tosa.reduce_product'}}
  %0 = tosa.reduce_product %x {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// An op without a rule on an activation path is reported even when nested in
// pipe.recompute.
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64} {
  %r = pipe.recompute -> tensor<4xf32> {
    // expected-error@+1 {{pipe-autodiff: no gradient rule for 'tosa.floor'}}
    %f = tosa.floor %x : (tensor<4xf32>) -> tensor<4xf32>
    pipe.yield %f : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// expected-error@+1 {{pipe-autodiff: argument #1 of stage function has type 'f32'; stage arguments must be statically shaped tensors}}
func.func private @s(%x: tensor<4xf32>, %scale: f32) -> tensor<4xf32> attributes {pipe.stage = 0 : i64} {
  %0 = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{pipe-autodiff: argument #0 of stage function has type 'tensor<?x4xf32>'; stage arguments must be statically shaped tensors}}
func.func private @s(%x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {pipe.stage = 0 : i64} {
  %0 = tosa.tanh %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// expected-error@+1 {{pipe-autodiff: result #0 of stage function has type 'index'; stage results must be statically shaped tensors}}
func.func private @s(%x: tensor<4xf32>) -> index attributes {pipe.stage = 0 : i64} {
  %c = arith.constant 0 : index
  return %c : index
}

// -----

// expected-error@+1 {{pipe-autodiff: stage function body must be a single block}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64} {
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{pipe-autodiff: stage function has no body}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64}

// -----

// expected-error@+1 {{pipe-autodiff: stage function already has 'pipe.fwd'; it was differentiated before}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @s_fwd} {
  return %x : tensor<4xf32>
}
func.func private @s_fwd(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
