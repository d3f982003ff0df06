// RUN: pipewave-opt %s -split-input-file -verify-diagnostics

func.func @ratio_one(%x: tensor<4x8xf32>, %c: tensor<4x3xi64>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'pipe.dropout' op ratio 1.000000e+00 is not in [0, 1)}}
  %y = pipe.dropout %x, %c ratio 1.0 stream 0 : tensor<4x8xf32>, tensor<4x3xi64>
  return %y : tensor<4x8xf32>
}

// -----

func.func @ratio_negative(%x: tensor<4x8xf32>, %c: tensor<4x3xi64>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'pipe.dropout' op ratio -1.000000e-01 is not in [0, 1)}}
  %y = pipe.dropout %x, %c ratio -0.1 stream 0 : tensor<4x8xf32>, tensor<4x3xi64>
  return %y : tensor<4x8xf32>
}

// -----

func.func @integer_input(%x: tensor<4x8xi32>, %c: tensor<4x3xi64>) -> tensor<4x8xi32> {
  // expected-error@+1 {{'pipe.dropout' op input must be a tensor of floating-point elements, got 'tensor<4x8xi32>'}}
  %y = pipe.dropout %x, %c ratio 0.5 stream 0 : tensor<4x8xi32>, tensor<4x3xi64>
  return %y : tensor<4x8xi32>
}

// -----

func.func @counter_shape(%x: tensor<4x8xf32>, %c: tensor<4x2xi64>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'pipe.dropout' op counter must be a tensor<Nx3xi64> (rows [seed, step, sample]), got 'tensor<4x2xi64>'}}
  %y = pipe.dropout %x, %c ratio 0.5 stream 0 : tensor<4x8xf32>, tensor<4x2xi64>
  return %y : tensor<4x8xf32>
}

// -----

func.func @negative_stream(%x: tensor<4x8xf32>, %c: tensor<4x3xi64>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'pipe.dropout' op stream -1 is negative}}
  %y = pipe.dropout %x, %c ratio 0.5 stream -1 : tensor<4x8xf32>, tensor<4x3xi64>
  return %y : tensor<4x8xf32>
}

// -----

// expected-error@+1 {{'pipe.counter' on argument #0 needs a tensor<Bx3xi64> argument, got 'tensor<4x3xi32>'}}
func.func @counter_type(%c: tensor<4x3xi32> {pipe.counter}) {
  return
}

// -----

// expected-error@+1 {{'pipe.counter' on argument #0 cannot be on a parameter}}
func.func @counter_param(%c: tensor<4x3xi64> {pipe.counter, pipe.param}) {
  return
}

// -----

// expected-error@+1 {{'pipe.counter' on arguments #0 and #1: a function has at most one counter}}
func.func @two_counters(%a: tensor<4x3xi64> {pipe.counter}, %b: tensor<4x3xi64> {pipe.counter}) {
  return
}
