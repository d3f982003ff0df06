// RUN: pipewave-opt %s -split-input-file --pipe-outline-stages -verify-diagnostics

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{pipe-outline-stages: operation has no pipe.stage; run pipe-partition first}}
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tosa.tanh %x {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{pipe-outline-stages: pipe.split markers are still present; run pipe-partition first}}
  pipe.split
  %b = tosa.exp %a {pipe.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// expected-error@+1 {{pipe-outline-stages: the entry function has no staged operations}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{pipe-outline-stages: a value of stage 1 is used by stage 0; a stage only consumes values of itself or earlier stages}}
  %a = tosa.tanh %x {pipe.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.exp %a {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
