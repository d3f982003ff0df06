// RUN: pipewave-opt %s -split-input-file -verify-diagnostics

// The attributes pipe-autodiff writes on a stage function, checked by the
// pipe dialect.

// expected-error@+1 {{'pipe.fwd' must be a flat symbol reference}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = "s_fwd"} {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.bwd' must be on a stage function (a function with 'pipe.stage')}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.bwd = @s} {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.fwd' refers to @missing, which is not a function of the module}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @missing} {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.bwd' requires 'pipe.fwd'}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.bwd = @s} {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.bwd_input' requires 'pipe.bwd_weight'}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @s, pipe.bwd = @s, pipe.bwd_input = @s} {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.grad_args' must list argument indices in [0, 1) in ascending order}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.grad_args = array<i64: 0, 1>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.grad_args' must be an array<i64: ...> of argument indices}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.grad_args = [0]} {
  return %x : tensor<4xf32>
}

// -----

// A complete set is accepted.
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @f, pipe.bwd = @b, pipe.bwd_input = @i, pipe.bwd_weight = @w, pipe.grad_args = array<i64: 0>} {
  return %x : tensor<4xf32>
}
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
func.func private @b(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32>
func.func private @i(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32>
func.func private @w() -> ()

// -----

// expected-error@+1 {{'pipe.wstash_args' requires 'pipe.bwd_input'}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.wstash_args = array<i64: -1>} {
  return %x : tensor<4xf32>
}

// -----

// pipe.wstash_args names, per argument of pipe.bwd_weight, an argument of
// pipe.bwd_input (or -1).
// expected-error@+1 {{'pipe.wstash_args' entry 1 is 2; expected -1 or an argument index of '@s_i' in [0, 2)}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @s, pipe.bwd = @s, pipe.bwd_input = @s_i, pipe.bwd_weight = @s_w, pipe.wstash_args = array<i64: 0, 2>} {
  return %x : tensor<4xf32>
}
func.func private @s_i(%x: tensor<4xf32>, %d: tensor<4xf32>) {
  return
}
func.func private @s_w(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.wstash_args' entry 0 names argument 1 of '@s_i' of type 'tensor<2xf32>', but argument 0 of '@s_w' is 'tensor<4xf32>'}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @s, pipe.bwd = @s, pipe.bwd_input = @s_i, pipe.bwd_weight = @s_w, pipe.wstash_args = array<i64: 1>} {
  return %x : tensor<4xf32>
}
func.func private @s_i(%x: tensor<4xf32>, %d: tensor<2xf32>) {
  return
}
func.func private @s_w(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.wstash_args' has 2 entries; '@s_w' takes 1 arguments}}
func.func private @s(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @s, pipe.bwd = @s, pipe.bwd_input = @s_i, pipe.bwd_weight = @s_w, pipe.wstash_args = array<i64: 0, 0>} {
  return %x : tensor<4xf32>
}
func.func private @s_i(%x: tensor<4xf32>) {
  return
}
func.func private @s_w(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
