// RUN: pipewave-opt %s -split-input-file --pipe-partition | FileCheck %s
// RUN: pipewave-opt %s -split-input-file --pipe-partition="strategy=manual" | FileCheck %s --check-prefix=MANUAL

// Markers cut in program order; the default strategy (auto) uses them and
// erases them. Other strategies refuse them (see pipe-partition-invalid.mlir),
// so only the auto and manual runs check this case.

// CHECK-LABEL: func.func @main
// CHECK-NOT: pipe.split
// CHECK: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// CHECK: tosa.exp {{.*}} {pipe.stage = 0 : i64}
// CHECK: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// CHECK: tosa.exp {{.*}} {pipe.stage = 2 : i64}
// CHECK-NOT: pipe.split
// MANUAL-LABEL: func.func @main
// MANUAL: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// MANUAL: tosa.exp {{.*}} {pipe.stage = 0 : i64}
// MANUAL: tosa.tanh {{.*}} {pipe.stage = 1 : i64}
// MANUAL: tosa.exp {{.*}} {pipe.stage = 2 : i64}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %c = tosa.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %d = tosa.exp %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// Stages written by hand as attributes (manual without markers). Constants
// take the stage of their first user.

// CHECK-LABEL: func.func @main
// CHECK: "tosa.const"(){{.*}}pipe.stage = 1
// CHECK: tosa.tanh {{.*}} {pipe.stage = 0 : i64}
// CHECK: tosa.add {{.*}} {pipe.stage = 1 : i64}
// MANUAL-LABEL: func.func @main
// MANUAL: tosa.add {{.*}} {pipe.stage = 1 : i64}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %c = "tosa.const"() <{values = dense<1.0> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
  %a = tosa.tanh %x {pipe.stage = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.add %a, %c {pipe.stage = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
