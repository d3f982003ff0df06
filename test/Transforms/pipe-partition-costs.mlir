// RUN: pipewave-opt %s --pipe-partition="num-stages=2 strategy=uniform" | FileCheck %s --check-prefix=UNIFORM
// RUN: pipewave-opt %s --pipe-partition="num-stages=2 strategy=balanced" | FileCheck %s --check-prefix=BALANCED
// RUN: pipewave-opt %s --pipe-partition="num-stages=2" | FileCheck %s --check-prefix=BALANCED
// RUN: pipewave-opt %s --pipe-partition="num-stages=1" | FileCheck %s --check-prefix=ONE
// RUN: pipewave-opt %s --pipe-partition="num-stages=7 strategy=uniform" | FileCheck %s --check-prefix=SEVEN

// Uneven costs: one 64x64x64 matmul (524288 flops) costs about as much as
// the six element-wise tanh ops after it together. Uniform cuts by count
// (4 + 3 ops); balanced puts the matmul alone in stage 0.

// UNIFORM-LABEL: func.func @main
// UNIFORM:      "tosa.const"(){{.*}}pipe.stage = 0
// UNIFORM:      tosa.matmul {{.*}} {pipe.stage = 0 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// UNIFORM-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}

// BALANCED-LABEL: func.func @main
// BALANCED:      tosa.matmul {{.*}} {pipe.stage = 0 : i64}
// BALANCED-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// BALANCED-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// BALANCED-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// BALANCED-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// BALANCED-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// BALANCED-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}

// S = 1: everything in stage 0.
// ONE-LABEL: func.func @main
// ONE-NOT: pipe.stage = 1
// ONE: return

// As many stages as operations: one op per stage.
// SEVEN-LABEL: func.func @main
// SEVEN: tosa.matmul {{.*}} {pipe.stage = 0 : i64}
// SEVEN-NEXT: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// SEVEN-NEXT: tosa.tanh {{.*}} {pipe.stage = 2 : i64}
// SEVEN-NEXT: tosa.tanh {{.*}} {pipe.stage = 3 : i64}
// SEVEN-NEXT: tosa.tanh {{.*}} {pipe.stage = 4 : i64}
// SEVEN-NEXT: tosa.tanh {{.*}} {pipe.stage = 5 : i64}
// SEVEN-NEXT: tosa.tanh {{.*}} {pipe.stage = 6 : i64}
func.func @main(%x: tensor<1x64x64xf32> {pipe.name = "x"},
                %w: tensor<1x64x64xf32> {pipe.name = "w", pipe.param})
    -> tensor<1x64x64xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  %t0 = tosa.tanh %m : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %t1 = tosa.tanh %t0 : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %t2 = tosa.tanh %t1 : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %t3 = tosa.tanh %t2 : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %t4 = tosa.tanh %t3 : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %t5 = tosa.tanh %t4 : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  return %t5 : tensor<1x64x64xf32>
}
