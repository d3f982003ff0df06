// RUN: not pipewave-opt %s --pipe-partition="strategy=magic" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not pipewave-opt %s --pass-pipeline="builtin.module(pipe-train{strategy=magic})" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not pipewave-compile %s --stages 2 --strategy=magic --emit=pipe -o - 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not pipewave-opt %s -split-input-file --pipe-partition="strategy=balanced" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not pipewave-opt %s -split-input-file --pipe-partition="num-stages=2 entry=forward" 2>&1 | FileCheck %s --check-prefix=ENTRY

// Invalid pass options. A strategy is one of the values the option parser
// knows; any other is rejected before the pass runs.

// STRATEGY: for the --strategy option: Cannot find option named 'magic'!
// COMPILE: pipewave-compile: error: --strategy=magic: expected auto, manual, uniform or balanced
// ZERO: error: pipe-partition: num-stages must be at least 1, got 0
// ENTRY: error: pipe-partition: entry function '@forward' not found

func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
