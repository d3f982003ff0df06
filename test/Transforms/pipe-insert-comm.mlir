// RUN: pipewave-opt %s -split-input-file --pipe-insert-comm | FileCheck %s
// RUN: pipewave-opt %s -split-input-file --pipe-insert-comm --pipe-insert-comm | FileCheck %s --check-prefix=TWICE

// Every value crossing a cut goes through a send after its producer and a
// receive before its consumer, with its type and a unique tag; entry
// arguments are not communicated.

// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[S0:.*]]:2 = call @main_stage0(%[[X]])
// CHECK-NEXT:    pipe.send act %[[S0]]#0 from 0 to 1 tag 0 : tensor<4x8xf32>
// CHECK-NEXT:    pipe.send act %[[S0]]#1 from 0 to 1 tag 1 : tensor<4xi32>
// CHECK-NEXT:    %[[R0:.*]] = pipe.recv act from 0 to 1 tag 0 : tensor<4x8xf32>
// CHECK-NEXT:    %[[R1:.*]] = pipe.recv act from 0 to 1 tag 1 : tensor<4xi32>
// CHECK-NEXT:    %[[S1:.*]] = call @main_stage1(%[[W]], %[[R0]], %[[R1]])
// CHECK-NEXT:    pipe.send act %[[S1]] from 1 to 2 tag 2 : tensor<4x8xf32>
// CHECK-NEXT:    %[[R2:.*]] = pipe.recv act from 1 to 2 tag 2 : tensor<4x8xf32>
// CHECK-NEXT:    %[[S2:.*]] = call @main_stage2(%[[R2]])
// CHECK-NEXT:    return %[[S2]]

// Running it again finds nothing left to route and adds no messages.
// TWICE-COUNT-3: pipe.send
// TWICE-NOT: pipe.send
func.func private @main_stage0(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xi32>) attributes {pipe.stage = 0 : i64} {
  %i = tosa.argmax %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4xi32>
  return %x, %i : tensor<4x8xf32>, tensor<4xi32>
}
func.func private @main_stage1(%w: tensor<8xf32>, %x: tensor<4x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> attributes {pipe.stage = 1 : i64} {
  return %x : tensor<4x8xf32>
}
func.func private @main_stage2(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 2 : i64} {
  return %x : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %0:2 = call @main_stage0(%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xi32>)
  %1 = call @main_stage1(%w, %0#0, %0#1) : (tensor<8xf32>, tensor<4x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  %2 = call @main_stage2(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// One stage: nothing crosses a cut.

// CHECK-LABEL: func.func @main(
// CHECK-NOT:     pipe.send
// CHECK-NOT:     pipe.recv
// CHECK:         return
func.func private @main_stage0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64} {
  return %x : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @main_stage0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
