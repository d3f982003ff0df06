// RUN: pipewave-opt %s -split-input-file -verify-diagnostics

func.func @send_to_itself(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.send' op sends stage 1 to itself}}
  pipe.send act %x from 1 to 1 tag 0 : tensor<4xf32>
  return
}

// -----

func.func @recv_from_itself() -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.recv' op sends stage 2 to itself}}
  %0 = pipe.recv grad from 2 to 2 tag 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @act_backwards(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.send' op activations flow to later stages, but this one goes from stage 1 to stage 0}}
  pipe.send act %x from 1 to 0 tag 0 : tensor<4xf32>
  return
}

// -----

func.func @act_backwards_recv() -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.recv' op activations flow to later stages, but this one goes from stage 3 to stage 2}}
  %0 = pipe.recv act from 3 to 2 tag 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @grad_forwards(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.send' op gradients flow to earlier stages, but this one goes from stage 0 to stage 1}}
  pipe.send grad %x from 0 to 1 tag 0 : tensor<4xf32>
  return
}

// -----

func.func @grad_forwards_recv() -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.recv' op gradients flow to earlier stages, but this one goes from stage 0 to stage 1}}
  %0 = pipe.recv grad from 0 to 1 tag 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_stage(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.send' op attribute 'from' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  pipe.send act %x from -1 to 1 tag 0 : tensor<4xf32>
  return
}

// -----

func.func @negative_tag() -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.recv' op attribute 'tag' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = pipe.recv act from 0 to 1 tag -3 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @send_unranked(%x: tensor<*xf32>) {
  // expected-error@+1 {{'pipe.send' op operand #0 must be ranked tensor of any type values}}
  "pipe.send"(%x) <{payload = 0 : i32, from = 0, to = 1, tag = 0}> : (tensor<*xf32>) -> ()
  return
}

// -----

func.func @split_in_recompute() {
  pipe.recompute {
    // expected-error@+1 {{'pipe.split' op expects parent op 'func.func'}}
    pipe.split
  }
  return
}

// -----

// expected-error@+1 {{'pipe.split' op expects parent op 'func.func'}}
pipe.split

// -----

func.func @recompute_yield_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.recompute' op yields 1 value(s) of types 'tensor<4xf32>' but has no results}}
  pipe.recompute {
    pipe.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @recompute_yield_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error@+1 {{'pipe.recompute' op yields 1 value(s) of types 'tensor<4xf32>' but has result types 'tensor<4xf16>'}}
  %0 = pipe.recompute -> tensor<4xf16> {
    pipe.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf16>
}

// -----

func.func @recompute_yield_missing() -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.recompute' op yields no value but has result types 'tensor<4xf32>'}}
  %0 = pipe.recompute -> tensor<4xf32> {
    pipe.yield
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside_recompute(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.yield' op expects parent op 'pipe.recompute'}}
  pipe.yield %x : tensor<4xf32>
}

// -----

func.func @negative_stage_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.stage' must be non-negative, got -1}}
  %0 = math.exp %x {pipe.stage = -1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @string_stage_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.stage' must be an i64 integer attribute}}
  %0 = math.exp %x {pipe.stage = "one"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @i32_stage_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.stage' must be an i64 integer attribute}}
  %0 = math.exp %x {pipe.stage = 1 : i32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.stage' must be non-negative, got -2}}
func.func private @negative_stage_func() attributes {pipe.stage = -2 : i64}

// -----

func.func @param_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.param' is an argument attribute; it cannot be placed on an operation}}
  %0 = math.exp %x {pipe.param} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @name_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'pipe.name' is an argument attribute; it cannot be placed on an operation}}
  %0 = math.exp %x {pipe.name = "y"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{'pipe.param' on argument #1 must be a unit attribute}}
func.func private @param_not_unit(tensor<4xf32>, tensor<4xf32> {pipe.param = 1})

// -----

// expected-error@+1 {{'pipe.name' on argument #0 must be a non-empty string}}
func.func private @name_empty(tensor<4xf32> {pipe.name = ""})

// -----

// expected-error@+1 {{'pipe.name' on argument #0 must be a non-empty string}}
func.func @name_not_string(%x: tensor<4xf32> {pipe.name = 3}) {
  return
}

// -----

func.func @unknown_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown pipe dialect attribute 'pipe.foo'}}
  %0 = math.exp %x {pipe.foo} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{unknown pipe dialect argument attribute 'pipe.foo' on argument #0}}
func.func private @unknown_arg_attr(tensor<4xf32> {pipe.foo})

// -----

// expected-error@+1 {{'pipe.frozen' on argument #0 needs 'pipe.param' (only a parameter can be frozen)}}
func.func private @frozen_not_param(tensor<4xf32> {pipe.frozen})

// -----

// expected-error@+1 {{'pipe.frozen' on argument #0 must be a unit attribute}}
func.func private @frozen_not_unit(tensor<4xf32> {pipe.param, pipe.frozen = 1})

// -----

func.func @batch_mean_no_batch(%x: tensor<8x4xf32>) -> tensor<8x1xf32> {
  // expected-error@+1 {{'pipe.batch_mean' op must reduce the batch dimension 0}}
  %m = pipe.batch_mean %x axes [1] : tensor<8x4xf32> -> tensor<8x1xf32>
  return %m : tensor<8x1xf32>
}

// -----

func.func @batch_mean_shape(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'pipe.batch_mean' op result type 'tensor<8x4xf32>' does not keep the reduced dimensions as 1s}}
  %m = pipe.batch_mean %x axes [0] : tensor<8x4xf32> -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// -----

func.func @batch_mean_correction(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error@+1 {{'pipe.batch_mean' op correction 1 must be at least 0 and below the count}}
  %m = pipe.batch_mean %x axes [0] {correction = 1} : tensor<1x4xf32> -> tensor<1x4xf32>
  return %m : tensor<1x4xf32>
}

// -----

func.func @update_not_frozen(%r: tensor<4xf32> {pipe.param}, %v: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.update_state' op state must be a 'pipe.frozen' parameter argument of the enclosing function}}
  pipe.update_state %r, %v momentum 0.1 : tensor<4xf32>
  return
}

// -----

func.func @update_momentum(%r: tensor<4xf32> {pipe.param, pipe.frozen}, %v: tensor<4xf32>) {
  // expected-error@+1 {{'pipe.update_state' op momentum 1.500000e+00 is not in [0, 1]}}
  pipe.update_state %r, %v momentum 1.5 : tensor<4xf32>
  return
}
