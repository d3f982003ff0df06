// RUN: pipewave-opt %s -split-input-file --pipe-partition="default-stages=1" | FileCheck %s --check-prefix=DEFAULT
// RUN: pipewave-opt %s -split-input-file --pipe-partition="num-stages=1 ignore-markers=true" | FileCheck %s --check-prefix=IGNORE
// RUN: not pipewave-opt %s -split-input-file --pipe-partition 2>&1 | FileCheck %s --check-prefix=NONE

// default-stages: the stage count when num-stages is 0 and there are no
// markers (pipewave-compile: the whole model is one stage); markers still
// win when present. ignore-markers: the markers are erased before cutting
// (pipewave-compile --stages 1).

// DEFAULT-LABEL: func.func @main
// DEFAULT: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// DEFAULT: tosa.exp {{.*}} {pipe.stage = 0 : i64}
// IGNORE-LABEL: func.func @main
// NONE: error: pipe-partition: num-stages must be at least 1, got 0
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// DEFAULT-LABEL: func.func @main
// DEFAULT: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// DEFAULT: tosa.exp {{.*}} {pipe.stage = 1 : i64}
// IGNORE-LABEL: func.func @main
// IGNORE-NOT: pipe.split
// IGNORE: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// IGNORE: tosa.exp {{.*}} {pipe.stage = 0 : i64}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
