// RUN: pipewave-opt %s -split-input-file --pipe-outline-stages | FileCheck %s

// Three stages with a skip connection: %a (stage 0) is used by stage 2, so
// stage 1 takes it as an argument and returns it unchanged. Stage
// functions take the entry arguments they use (with their attributes), then
// the values of the previous stage. The constant is copied into each stage
// that uses it.

// CHECK-LABEL: func.func private @main_stage0(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32> {pipe.name = "x"})
// CHECK-SAME:      -> (tensor<4xf32>, tensor<4xf32>) attributes {pipe.stage = 0 : i64}
// CHECK:         %[[C:.*]] = "tosa.const"
// CHECK:         %[[A:.*]] = tosa.tanh %[[X]]
// CHECK:         %[[B:.*]] = tosa.add %[[A]], %[[C]]
// CHECK:         return %[[A]], %[[B]]

// CHECK-LABEL: func.func private @main_stage1(
// CHECK-SAME:      %[[W:.*]]: tensor<4xf32> {pipe.name = "w", pipe.param}, %[[A1:.*]]: tensor<4xf32>, %[[B1:.*]]: tensor<4xf32>)
// CHECK-SAME:      -> (tensor<4xf32>, tensor<4xf32>) attributes {pipe.stage = 1 : i64}
// CHECK:         %[[D:.*]] = tosa.mul
// CHECK:         return %[[A1]], %[[D]]

// CHECK-LABEL: func.func private @main_stage2(
// CHECK-SAME:      %[[A2:.*]]: tensor<4xf32>, %[[D2:.*]]: tensor<4xf32>)
// CHECK-SAME:      -> tensor<4xf32> attributes {pipe.stage = 2 : i64}
// CHECK:         %[[C2:.*]] = "tosa.const"
// CHECK:         %[[E:.*]] = tosa.add %[[A2]], %[[D2]]
// CHECK:         %[[F:.*]] = tosa.sub %[[E]], %[[C2]]
// CHECK:         return %[[F]]

// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %[[MX:.*]]: tensor<4xf32> {pipe.name = "x"}, %[[MW:.*]]: tensor<4xf32> {pipe.name = "w", pipe.param})
// CHECK-NEXT:    %[[S0:.*]]:2 = call @main_stage0(%[[MX]])
// CHECK-NEXT:    %[[S1:.*]]:2 = call @main_stage1(%[[MW]], %[[S0]]#0, %[[S0]]#1)
// CHECK-NEXT:    %[[S2:.*]] = call @main_stage2(%[[S1]]#0, %[[S1]]#1)
// CHECK-NEXT:    return %[[S2]]
func.func @main(%x: tensor<4xf32> {pipe.name = "x"},
                %w: tensor<4xf32> {pipe.name = "w", pipe.param}) -> tensor<4xf32> {
  %c = "tosa.const"() <{values = dense<1.0> : tensor<4xf32>}> {pipe.stage = 0 : i64} : () -> tensor<4xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> {pipe.stage = 1 : i64} : () -> tensor<1xi8>
  %a = tosa.tanh %x {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.add %a, %c {pipe.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = tosa.mul %b, %w, %shift {pipe.stage = 1 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
  %e = tosa.add %a, %d {pipe.stage = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %f = tosa.sub %e, %c {pipe.stage = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

// One stage: the whole function is stage 0 and @main one call. A result
// that is an entry argument is passed through the last stage.

// CHECK-LABEL: func.func private @main_stage0(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32> {pipe.name = "x"}) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[A:.*]] = tosa.exp %[[X]]
// CHECK:         return %[[A]], %[[X]]
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[R:.*]]:2 = call @main_stage0(
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = tosa.exp %x {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %x : tensor<4xf32>, tensor<4xf32>
}

// -----

// An entry result computed by an early stage is forwarded to the last
// stage, which returns the entry's results.

// CHECK-LABEL: func.func private @main_stage0(
// CHECK:         return %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK-LABEL: func.func private @main_stage1(
// CHECK-SAME:      %[[E:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[L:.*]] = tosa.log %[[T]]
// CHECK:         return %[[L]], %[[E]]
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tosa.exp %x {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %t = tosa.tanh %e {pipe.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %l = tosa.log %t {pipe.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %l, %e : tensor<4xf32>, tensor<4xf32>
}
