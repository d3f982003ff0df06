// RUN: pipewave-opt %s -split-input-file --pipe-microbatch=microbatches=4 | FileCheck %s
// RUN: pipewave-opt %s -split-input-file --pipe-microbatch=microbatches=1 | FileCheck %s --check-prefix=ONE
// RUN: pipewave-opt %s -split-input-file --pipe-microbatch="microbatches=2 replicas=2" | FileCheck %s

// A linear layer (reshapes around the 3-D tosa.matmul) in stage 0, an MSE
// loss in stage 1. The batch of x and y (8) becomes 2; reshape shapes follow
// (the batch is the first non-unit dimension of [1, 8, 4]); the loss, a
// reduce_sum over the batch times a constant, combines by sum.

// CHECK-LABEL: func.func private @main_stage0(
// CHECK-SAME:      %[[X:.*]]: tensor<2x4xf32> {pipe.name = "x"}, %[[W:.*]]: tensor<1x4x6xf32> {pipe.name = "w", pipe.param}) -> tensor<2x6xf32>
// CHECK-DAG:     %[[S2:.*]] = tosa.const_shape {values = dense<[2, 6]> : tensor<2xindex>}
// CHECK-DAG:     %[[S3:.*]] = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>}
// CHECK-NOT:     dense<[1, 8, 4]>
// CHECK:         %[[A:.*]] = tosa.reshape %[[X]], %[[S3]] : (tensor<2x4xf32>, !tosa.shape<3>) -> tensor<1x2x4xf32>
// CHECK:         %[[M:.*]] = tosa.matmul %[[A]], %[[W]], {{.*}} -> tensor<1x2x6xf32>
// CHECK:         %[[R:.*]] = tosa.reshape %[[M]], %[[S2]] : (tensor<1x2x6xf32>, !tosa.shape<2>) -> tensor<2x6xf32>
// CHECK:         return %[[R]] : tensor<2x6xf32>

// CHECK-LABEL: func.func private @main_stage1(
// CHECK-SAME:      tensor<2x6xf32> {pipe.name = "y"}, %{{.*}}: tensor<2x6xf32>) -> tensor<f32>
// CHECK:         tosa.reduce_sum %{{.*}} {axis = 1 : i32} : (tensor<2x6xf32>) -> tensor<2x1xf32>
// CHECK:         tosa.reduce_sum %{{.*}} {axis = 0 : i32} : (tensor<2x1xf32>) -> tensor<1x1xf32>
// CHECK:         tosa.reshape {{.*}} -> tensor<f32>

// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %[[GX:.*]]: tensor<8x4xf32> {pipe.name = "x"}, %[[GY:.*]]: tensor<8x6xf32> {pipe.name = "y"}, %[[GW:.*]]: tensor<1x4x6xf32> {pipe.name = "w", pipe.param}) -> (tensor<f32> {pipe.combine = "sum"})
// CHECK-DAG:     %[[MX:.*]] = tensor.extract_slice %[[GX]][0, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
// CHECK-DAG:     %[[MY:.*]] = tensor.extract_slice %[[GY]][0, 0] [2, 6] [1, 1] : tensor<8x6xf32> to tensor<2x6xf32>
// CHECK:         %[[H:.*]] = call @main_stage0(%[[MX]], %[[GW]]) : (tensor<2x4xf32>, tensor<1x4x6xf32>) -> tensor<2x6xf32>
// CHECK:         %[[L:.*]] = call @main_stage1(%[[MY]], %[[H]]) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<f32>
// CHECK:         return %[[L]] : tensor<f32>

// With one microbatch nothing changes but the combine attribute.
// ONE-LABEL: func.func private @main_stage0(
// ONE-SAME:      tensor<8x4xf32>
// ONE:         tosa.const_shape {values = dense<[1, 8, 4]> : tensor<3xindex>}
// ONE-LABEL: func.func @main(
// ONE-SAME:      -> (tensor<f32> {pipe.combine = "sum"})
// ONE-NOT:     tensor.extract_slice
// ONE:         call @main_stage0(%arg0, %arg2)
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<1x4x6xf32> {pipe.name = "w", pipe.param}) -> tensor<8x6xf32> attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[8, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %a = tosa.reshape %x, %s3 : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<1x8x4xf32>
  %m = tosa.matmul %a, %w, %zp, %zp : (tensor<1x8x4xf32>, tensor<1x4x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x6xf32>
  %r = tosa.reshape %m, %s2 : (tensor<1x8x6xf32>, !tosa.shape<2>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
func.func private @main_stage1(%y: tensor<8x6xf32> {pipe.name = "y"}, %h: tensor<8x6xf32>) -> tensor<f32> attributes {pipe.stage = 1 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.02> : tensor<f32>}> : () -> tensor<f32>
  %s0 = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %d = tosa.sub %h, %y : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<8x6xf32>, tensor<8x6xf32>, tensor<1xi8>) -> tensor<8x6xf32>
  %r1 = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<8x6xf32>) -> tensor<8x1xf32>
  %r0 = tosa.reduce_sum %r1 {axis = 0 : i32} : (tensor<8x1xf32>) -> tensor<1x1xf32>
  %t = tosa.reshape %r0, %s0 : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  %l = tosa.mul %t, %inv, %shift : (tensor<f32>, tensor<f32>, tensor<1xi8>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}, %y: tensor<8x6xf32> {pipe.name = "y"}, %w: tensor<1x4x6xf32> {pipe.name = "w", pipe.param}) -> tensor<f32> {
  %0 = call @main_stage0(%x, %w) : (tensor<8x4xf32>, tensor<1x4x6xf32>) -> tensor<8x6xf32>
  %1 = call @main_stage1(%y, %0) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// An inference model: the batch-carrying output combines by concatenation
// and leaves @main through an insert_slice into the global result. A
// parameter-only value (%sw) crosses the cut without a batch; a partial sum
// crosses the cut and is scaled in the next stage; heads split by
// reshape + transpose keep the batch outermost.

// CHECK-LABEL: func.func private @main_stage0(
// CHECK-SAME:      %{{.*}}: tensor<1x2x6xf32> {pipe.name = "x"}, %{{.*}}: tensor<1x1x6xf32> {pipe.name = "w", pipe.param})
// CHECK-SAME:      -> (tensor<1x2x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>)
// CHECK-DAG:     %[[BACK:.*]] = tosa.const_shape {values = dense<[1, 2, 6]> : tensor<3xindex>}
// CHECK-DAG:     %[[SPLIT:.*]] = tosa.const_shape {values = dense<[2, 2, 3]> : tensor<3xindex>}
// CHECK:         %[[H:.*]] = tosa.mul {{.*}} -> tensor<1x2x6xf32>
// CHECK:         tosa.reduce_sum %[[H]] {axis = 0 : i32} : (tensor<1x2x6xf32>) -> tensor<1x2x6xf32>
// CHECK:         tosa.reduce_sum %{{.*}} {axis = 1 : i32} : (tensor<1x2x6xf32>) -> tensor<1x1x6xf32>
// CHECK:         tosa.reshape %[[H]], %[[SPLIT]] : {{.*}} -> tensor<2x2x3xf32>
// CHECK:         tosa.transpose %{{.*}} {perms = array<i32: 0, 2, 1>} : (tensor<2x2x3xf32>) -> tensor<2x3x2xf32>
// CHECK:         tosa.reshape %{{.*}}, %[[BACK]] : {{.*}} -> tensor<1x2x6xf32>
// CHECK-LABEL: func.func private @main_stage1(
// CHECK-SAME:      %{{.*}}: tensor<1x2x6xf32>, %{{.*}}: tensor<1x1x6xf32>, %{{.*}}: tensor<1x1x6xf32>) -> (tensor<1x2x6xf32>, tensor<1x1x6xf32>)
// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %[[X:.*]]: tensor<4x2x6xf32> {pipe.name = "x"}
// CHECK-SAME:      -> (tensor<4x2x6xf32> {pipe.combine = "concat"}, tensor<1x1x6xf32> {pipe.combine = "sum"})
// CHECK:         %[[MX:.*]] = tensor.extract_slice %[[X]][0, 0, 0] [1, 2, 6] [1, 1, 1] : tensor<4x2x6xf32> to tensor<1x2x6xf32>
// CHECK:         %[[S0:.*]]:3 = call @main_stage0(%[[MX]], %{{.*}})
// CHECK:         %[[S1:.*]]:2 = call @main_stage1(%[[S0]]#0, %[[S0]]#1, %[[S0]]#2)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x2x6xf32>
// CHECK:         %[[G:.*]] = tensor.insert_slice %[[S1]]#0 into %[[E]][0, 0, 0] [1, 2, 6] [1, 1, 1] : tensor<1x2x6xf32> into tensor<4x2x6xf32>
// CHECK:         return %[[G]], %[[S1]]#1 : tensor<4x2x6xf32>, tensor<1x1x6xf32>
func.func private @main_stage0(%x: tensor<4x2x6xf32> {pipe.name = "x"}, %w: tensor<1x1x6xf32> {pipe.name = "w", pipe.param}) -> (tensor<4x2x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>) attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sw = tosa.mul %w, %w, %shift : (tensor<1x1x6xf32>, tensor<1x1x6xf32>, tensor<1xi8>) -> tensor<1x1x6xf32>
  %h = tosa.mul %x, %sw, %shift : (tensor<4x2x6xf32>, tensor<1x1x6xf32>, tensor<1xi8>) -> tensor<4x2x6xf32>
  %p0 = tosa.reduce_sum %h {axis = 0 : i32} : (tensor<4x2x6xf32>) -> tensor<1x2x6xf32>
  %p = tosa.reduce_sum %p0 {axis = 1 : i32} : (tensor<1x2x6xf32>) -> tensor<1x1x6xf32>
  %s_split = tosa.const_shape {values = dense<[8, 2, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %heads = tosa.reshape %h, %s_split : (tensor<4x2x6xf32>, !tosa.shape<3>) -> tensor<8x2x3xf32>
  %t = tosa.transpose %heads {perms = array<i32: 0, 2, 1>} : (tensor<8x2x3xf32>) -> tensor<8x3x2xf32>
  %s_back = tosa.const_shape {values = dense<[4, 2, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %back = tosa.reshape %t, %s_back : (tensor<8x3x2xf32>, !tosa.shape<3>) -> tensor<4x2x6xf32>
  return %back, %sw, %p : tensor<4x2x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>
}
func.func private @main_stage1(%h: tensor<4x2x6xf32>, %sw: tensor<1x1x6xf32>, %p: tensor<1x1x6xf32>) -> (tensor<4x2x6xf32>, tensor<1x1x6xf32>) attributes {pipe.stage = 1 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %o = tosa.add %h, %sw : (tensor<4x2x6xf32>, tensor<1x1x6xf32>) -> tensor<4x2x6xf32>
  %q = tosa.mul %sw, %p, %shift : (tensor<1x1x6xf32>, tensor<1x1x6xf32>, tensor<1xi8>) -> tensor<1x1x6xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %n = tosa.negate %q, %zp, %zp : (tensor<1x1x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x6xf32>
  return %o, %n : tensor<4x2x6xf32>, tensor<1x1x6xf32>
}
func.func @main(%x: tensor<4x2x6xf32> {pipe.name = "x"}, %w: tensor<1x1x6xf32> {pipe.name = "w", pipe.param}) -> (tensor<4x2x6xf32>, tensor<1x1x6xf32>) {
  %0:3 = call @main_stage0(%x, %w) : (tensor<4x2x6xf32>, tensor<1x1x6xf32>) -> (tensor<4x2x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>)
  %1:2 = call @main_stage1(%0#0, %0#1, %0#2) : (tensor<4x2x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> (tensor<4x2x6xf32>, tensor<1x1x6xf32>)
  return %1#0, %1#1 : tensor<4x2x6xf32>, tensor<1x1x6xf32>
}
