// RUN: split-file %s %t
// RUN: not pipewave-compile %t/batch-max.mlir --stages 1 --microbatches 2 --emit=obj -o %t/a.o 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: not pipewave-compile %t/syntax.mlir --emit=obj -o %t/b.o 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not pipewave-compile %t/batch-max.mlir --microbatches 3 --emit=obj -o %t/c.o 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not pipewave-compile %t/batch-max.mlir --schedule=zigzag 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not pipewave-compile %t/batch-max.mlir --target=tpu 2>&1 | FileCheck %s --check-prefix=TPU
// RUN: not pipewave-compile %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// Errors of every phase carry the model's file:line:col and fail the
// command. With one microbatch the same model compiles.
// RUN: pipewave-compile %t/batch-max.mlir --microbatches 1 --emit=obj -o %t/ok.o

// MAX: batch-max.mlir:3:8: error: cannot split 'tosa.reduce_max' into microbatches: it reduces over the batch dimension 0
// SYNTAX: syntax.mlir:2:8: error: custom op 'tosa.frobnicate' is unknown
// DIVIDE: batch-max.mlir:1:1: error: pipe-microbatch: microbatches=3 does not divide the batch size 8 (dimension 0 of data input 'x')
// SCHEDULE: batch-max.mlir:1:1: error: pipe-schedule: unknown schedule 'zigzag'
// TPU: pipewave-compile: error: --target=tpu: expected cpu or cuda
// MISSING: pipewave-compile: error: cannot open input file '{{.*}}missing.mlir'

//--- batch-max.mlir
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<1x4xf32> {
  // The largest value over the batch is not a sum of microbatch values.
  %m = tosa.reduce_max %x {axis = 0 : i32} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  return %m : tensor<1x4xf32>
}
//--- syntax.mlir
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> {
  %y = tosa.frobnicate %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
