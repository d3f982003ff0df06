// RUN: pipewave-opt %s -split-input-file --pipe-partition="num-stages=2 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=1f1b microbatches=2" -verify-diagnostics
// RUN: pipewave-opt %s -split-input-file --pipe-partition="num-stages=2 strategy=manual" --pipe-outline-stages --pipe-schedule="schedule=1f1b microbatches=2 forward-only=true" | FileCheck %s --check-prefix=INFER

// What the runtime would refuse about trained parameters, pipe-schedule
// finds first, naming the parameter and the stages. A forward-only step
// trains nothing and is not checked. (A trained parameter on two stages is
// tied: pipe-schedule-tied.mlir.)

// INFER-COUNT-2: sched.program "1f1b" stages 2 microbatches 2

// A frozen parameter gets no gradient: two stages may read it.
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<4x8xf32> {pipe.name = "w", pipe.param, pipe.frozen}) -> tensor<f32> {
  %a = tosa.add %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.add %a, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The optimizers update f32 parameters.
// expected-error@+1 {{pipe-schedule: parameter 'v' of stage 1 is 'f64': the optimizers update f32 parameters only (freeze it with --frozen, or make it f32)}}
func.func @main(%x: tensor<4x8xf64> {pipe.name = "x"},
                %v: tensor<4x8xf64> {pipe.name = "v", pipe.param}) -> tensor<f64> {
  %a = tosa.tanh %x : (tensor<4x8xf64>) -> tensor<4x8xf64>
  pipe.split
  %b = tosa.add %a, %v : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %s = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<4x8xf64>) -> tensor<1x8xf64>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf64>) -> tensor<1x1xf64>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf64>, !tosa.shape<0>) -> tensor<f64>
  return %l : tensor<f64>
}
