// RUN: pipewave-opt %s -split-input-file | FileCheck %s
// Round trip through the generic form as well.
// RUN: pipewave-opt %s -split-input-file -mlir-print-op-generic | pipewave-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @split
//       CHECK:   %[[A:.*]] = math.tanh %{{.*}} : tensor<4x8xf32>
//  CHECK-NEXT:   pipe.split
//  CHECK-NEXT:   %[[B:.*]] = math.exp %[[A]] : tensor<4x8xf32>
//  CHECK-NEXT:   pipe.split
//  CHECK-NEXT:   math.exp %[[B]] : tensor<4x8xf32>
func.func @split(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = math.tanh %x : tensor<4x8xf32>
  pipe.split
  %b = math.exp %a : tensor<4x8xf32>
  pipe.split
  %c = math.exp %b : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @send_recv
//  CHECK-SAME:   (%[[H:.*]]: tensor<16x128xf32>, %[[G:.*]]: tensor<16x128xf32>)
//       CHECK:   pipe.send act %[[H]] from 0 to 1 tag 0 : tensor<16x128xf32>
//  CHECK-NEXT:   %{{.*}} = pipe.recv act from 0 to 1 tag 0 : tensor<16x128xf32>
//  CHECK-NEXT:   pipe.send grad %[[G]] from 3 to 1 tag 7 : tensor<16x128xf32>
//  CHECK-NEXT:   %{{.*}} = pipe.recv grad from 3 to 1 tag 7 : tensor<16x128xf32>
func.func @send_recv(%h: tensor<16x128xf32>, %g: tensor<16x128xf32>)
    -> (tensor<16x128xf32>, tensor<16x128xf32>) {
  pipe.send act %h from 0 to 1 tag 0 : tensor<16x128xf32>
  %h1 = pipe.recv act from 0 to 1 tag 0 : tensor<16x128xf32>
  pipe.send grad %g from 3 to 1 tag 7 : tensor<16x128xf32>
  %g1 = pipe.recv grad from 3 to 1 tag 7 : tensor<16x128xf32>
  return %h1, %g1 : tensor<16x128xf32>, tensor<16x128xf32>
}

// -----

// CHECK-LABEL: func.func @recompute
//  CHECK-SAME:   (%[[X:.*]]: tensor<16x128xf32>)
//       CHECK:   %[[R:.*]]:2 = pipe.recompute -> tensor<16x128xf32>, tensor<16x128xf32> {
//  CHECK-NEXT:     %[[T:.*]] = math.tanh %[[X]] : tensor<16x128xf32>
//  CHECK-NEXT:     %[[E:.*]] = math.exp %[[T]] : tensor<16x128xf32>
//  CHECK-NEXT:     pipe.yield %[[T]], %[[E]] : tensor<16x128xf32>, tensor<16x128xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   pipe.recompute {
//  CHECK-NEXT:     math.exp %[[R]]#0 : tensor<16x128xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   pipe.recompute attributes {note = "empty"} {
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[R]]#1
func.func @recompute(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %r:2 = pipe.recompute -> tensor<16x128xf32>, tensor<16x128xf32> {
    %t = math.tanh %x : tensor<16x128xf32>
    %e = math.exp %t : tensor<16x128xf32>
    pipe.yield %t, %e : tensor<16x128xf32>, tensor<16x128xf32>
  }
  // Without results the yield is implicit (and may be written).
  pipe.recompute {
    %u = math.exp %r#0 : tensor<16x128xf32>
    pipe.yield
  }
  pipe.recompute attributes {note = "empty"} {
  }
  return %r#1 : tensor<16x128xf32>
}

// -----

// pipe.stage on operations and on a stage function; pipe.param and pipe.name
// on arguments.

// CHECK-LABEL: func.func @main
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xf32> {pipe.name = "x"},
//  CHECK-SAME:   %{{.*}}: tensor<8x8xf32> {pipe.name = "w0", pipe.param})
//       CHECK:   math.tanh %[[X]] {pipe.stage = 0 : i64} : tensor<4x8xf32>
//       CHECK:   math.exp %{{.*}} {pipe.stage = 1 : i64} : tensor<4x8xf32>
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<8x8xf32> {pipe.param, pipe.name = "w0"})
    -> tensor<4x8xf32> {
  %a = math.tanh %x {pipe.stage = 0} : tensor<4x8xf32>
  %b = math.exp %a {pipe.stage = 1 : i64} : tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// CHECK-LABEL: func.func private @stage1
//  CHECK-SAME:   attributes {pipe.stage = 1 : i64}
func.func private @stage1(tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {pipe.stage = 1 : i64}

// -----

// CHECK-LABEL: func.func @batch_statistics
//       CHECK:   %[[M:.*]] = pipe.batch_mean %{{.*}} axes [0, 2, 3] : tensor<8x4x6x6xf32> -> tensor<1x4x1x1xf32>
//       CHECK:   pipe.batch_mean %{{.*}} axes [0, 2, 3] {correction = 1 : i64} : tensor<8x4x6x6xf32> -> tensor<1x4x1x1xf32>
//       CHECK:   pipe.update_state %{{.*}}, %{{.*}} momentum 1.000000e-01 : tensor<1x4x1x1xf32>
func.func @batch_statistics(%x: tensor<8x4x6x6xf32>, %r: tensor<1x4x1x1xf32> {pipe.param, pipe.frozen}) -> tensor<1x4x1x1xf32> {
  %m = pipe.batch_mean %x axes [0, 2, 3] : tensor<8x4x6x6xf32> -> tensor<1x4x1x1xf32>
  %v = pipe.batch_mean %x axes [0, 2, 3] {correction = 1} : tensor<8x4x6x6xf32> -> tensor<1x4x1x1xf32>
  pipe.update_state %r, %v momentum 0.1 : tensor<1x4x1x1xf32>
  return %m : tensor<1x4x1x1xf32>
}
