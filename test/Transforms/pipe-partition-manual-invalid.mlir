// RUN: pipewave-opt %s -split-input-file --pipe-partition="num-stages=3 strategy=manual" -verify-diagnostics

// Errors of hand-written cuts (markers or pipe.stage attributes).

// expected-error@+1 {{pipe-partition: num-stages=3 but the 1 pipe.split marker(s) make 2 stages}}
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  pipe.split
  %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  pipe.split
  // expected-error@+1 {{pipe-partition: stage 1 is empty; a pipe.split must follow at least one operation of its stage}}
  pipe.split
  %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  pipe.split
  %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{pipe-partition: stage 2 is empty; no operation follows the last pipe.split}}
  pipe.split
  return %b : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{pipe-partition: strategy=manual needs pipe.split markers or a pipe.stage attribute on every operation; this one has none}}
  %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// A stage may only consume values of itself or earlier stages.
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x {pipe.stage = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{pipe-partition: this operation of stage 1 uses a value of stage 2; a stage only consumes values of itself or earlier stages}}
  %b = tosa.exp %a {pipe.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %c = tosa.exp %b {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// expected-error@+1 {{pipe-partition: stage 1 has no operation}}
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.exp %a {pipe.stage = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
