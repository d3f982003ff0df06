// RUN: pipewave-opt %s -split-input-file --pipe-microbatch=microbatches=4 -verify-diagnostics

// A max over the batch does not split into microbatches.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<1x4xf32> attributes {pipe.stage = 0 : i64} {
  // expected-error@+1 {{cannot split 'tosa.reduce_max' into microbatches: it reduces over the batch dimension 0 of 'tensor<2x4xf32>'; only tosa.reduce_sum may reduce over the batch}}
  %m = tosa.reduce_max %x {axis = 0 : i32} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  return %m : tensor<1x4xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<1x4xf32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A non-linear function of a batch sum (the reciprocal square root of a
// variance over the batch, as batch norm would compute) is rejected.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<1x4xf32> attributes {pipe.stage = 0 : i64} {
  // expected-note@+1 {{the sum over the batch}}
  %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  // expected-error@+1 {{cannot split 'tosa.rsqrt' into microbatches: it uses a sum over the batch, which is only a partial sum over one microbatch}}
  %r = tosa.rsqrt %s : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<1x4xf32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Using a batch sum with batch values (centering by the batch mean) is
// rejected too, also across a stage boundary.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> (tensor<8x4xf32>, tensor<1x4xf32>) attributes {pipe.stage = 0 : i64} {
  // expected-note@+1 {{the sum over the batch}}
  %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  return %x, %s : tensor<8x4xf32>, tensor<1x4xf32>
}
func.func private @main_stage1(%x: tensor<8x4xf32>, %s: tensor<1x4xf32>) -> tensor<8x4xf32> attributes {pipe.stage = 1 : i64} {
  // expected-error@+1 {{cannot split 'tosa.sub' into microbatches: it uses a sum over the batch}}
  %c = tosa.sub %x, %s : (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> {
  %0:2 = call @main_stage0(%x) : (tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<1x4xf32>)
  %1 = call @main_stage1(%0#0, %0#1) : (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// Adding a constant to a partial sum would count it once per microbatch.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<1x4xf32> attributes {pipe.stage = 0 : i64} {
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  // expected-note@+1 {{the sum over the batch}}
  %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  // expected-error@+1 {{cannot split 'tosa.add' into microbatches}}
  %a = tosa.add %s, %one : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %a : tensor<1x4xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<1x4xf32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A transpose that moves the batch away from the outermost position.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  // expected-error@+1 {{cannot split 'tosa.transpose' into microbatches: it moves the batch dimension 0 away from the outermost non-unit position}}
  %t = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A matmul contracting over the batch (w x with x : [1, batch, 4]) mixes the
// batch into another dimension; the inferred shape gives it away.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<1x4x8xf32> {pipe.name = "w", pipe.param}) -> tensor<1x4x4xf32> attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.const_shape {values = dense<[1, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<1x8x4xf32>
  // expected-error@+2 {{cannot split 'tosa.matmul' into microbatches: with microbatch operands its result has shape [1, 4, 4], but a value carrying the batch must keep it as the outermost factor, giving 'tensor<1x1x4xf32>'}}
  // expected-note@+1 {{the op mixes the batch with another dimension}}
  %m = tosa.matmul %w, %x3, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  return %m : tensor<1x4x4xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<1x4x8xf32> {pipe.name = "w", pipe.param}) -> tensor<1x4x4xf32> {
  %0 = call @main_stage0(%x, %w) : (tensor<8x4xf32>, tensor<1x4x8xf32>) -> tensor<1x4x4xf32>
  return %0 : tensor<1x4x4xf32>
}

// -----

// A derived batch dimension that the microbatch count does not divide: the
// reshape puts a factor 2 of the batch 8 outermost.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<2x16xf32> attributes {pipe.stage = 0 : i64} {
  %s = tosa.const_shape {values = dense<[2, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error@+1 {{cannot split 'tosa.reshape' into 4 microbatches: dimension 0 of its result ('tensor<2x16xf32>') carries the batch and 2 is not divisible by 4}}
  %r = tosa.reshape %x, %s : (tensor<8x4xf32>, !tosa.shape<2>) -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<2x16xf32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// A batch-sized constant next to a batch value no longer broadcasts.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> attributes {pipe.stage = 0 : i64} {
  %c = "tosa.const"() <{values = dense<1.0> : tensor<8x4xf32>}> : () -> tensor<8x4xf32>
  // expected-error@+3 {{cannot split 'tosa.add' into microbatches: it does not verify with microbatch shapes}}
  // expected-note@+2 {{'tosa.add' op operands don't have broadcast-compatible shapes}}
  // expected-note@+1 {{an operand that carries no batch may have a batch-sized dimension}}
  %a = tosa.add %x, %c : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// The batch of a data input must be divisible.
// expected-error@+1 {{pipe-microbatch: microbatches=4 does not divide the batch size 6 (dimension 0 of data input 'x')}}
func.func @main(%x: tensor<6x4xf32> {pipe.name = "x"}) -> tensor<6x4xf32> {
  return %x : tensor<6x4xf32>
}

// -----

// A result that depends on no data input has no combine rule.
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<4xf32> {pipe.name = "w", pipe.param}) -> (tensor<8x4xf32>, tensor<4xf32>) attributes {pipe.stage = 0 : i64} {
  return %x, %w : tensor<8x4xf32>, tensor<4xf32>
}
// expected-error@+1 {{pipe-microbatch: result #1 of '@main' depends on no data input, so it cannot be combined over microbatches}}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<4xf32> {pipe.name = "w", pipe.param}) -> (tensor<8x4xf32>, tensor<4xf32>) {
  %0:2 = call @main_stage0(%x, %w) : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<8x4xf32>, tensor<4xf32>
}

// -----

// The pass runs after pipe-outline-stages.
// expected-error@+1 {{pipe-microbatch: '@main' calls no stage function; run pipe-partition and pipe-outline-stages first}}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> {
  %a = tosa.tanh %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func private @main_stage0(%x: tensor<2x4xf32> {pipe.name = "x"}) -> tensor<2x4xf32> attributes {pipe.stage = 0 : i64} {
  return %x : tensor<2x4xf32>
}
// expected-error@+1 {{pipe-microbatch: '@main' was already specialised for microbatches}}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> (tensor<8x4xf32> {pipe.combine = "concat"}) {
  %s = tensor.extract_slice %x[0, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
  %0 = call @main_stage0(%s) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %g = tensor.insert_slice %0 into %e[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}
