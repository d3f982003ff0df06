// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-microbatch=microbatches=2 | FileCheck %s --check-prefix=MB
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-microbatch=microbatches=2 --pipe-autodiff | FileCheck %s

// A BatchNorm-like stage: x - mean(x) with the mean of each microbatch, and
// a running mean moved towards it. pipe-microbatch expands pipe.batch_mean
// over the microbatch (2 of the 4 rows: the sum times 1/2, or 1/(2-1) with
// correction 1); pipe-autodiff makes the new running value the last result
// of the forward (after the stash) and records its argument in
// pipe.state_args; the stage function itself updates nothing.

// MB-LABEL: func.func private @main_stage0(
// MB-SAME:      tensor<2x3xf32> {pipe.name = "x"}
// MB-NOT:     pipe.batch_mean
// MB:         %[[S:.*]] = tosa.reduce_sum %{{.*}} {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// MB:         %[[H:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1xf32>}>
// MB:         %[[M:.*]] = tosa.mul %[[S]], %[[H]]
// MB:         tosa.sub %{{.*}}, %[[M]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// MB:         %[[S1:.*]] = tosa.reduce_sum %{{.*}} {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// MB:         %[[ONE:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1xf32>}>
// MB:         %[[V:.*]] = tosa.mul %[[S1]], %[[ONE]]
// MB:         pipe.update_state %{{.*}}, %[[V]] momentum 1.000000e-01 : tensor<1x3xf32>

// CHECK-LABEL: func.func private @main_stage0(
// CHECK-SAME:      %{{.*}}: tensor<2x3xf32> {pipe.name = "x"}, %[[R:.*]]: tensor<1x3xf32> {pipe.frozen, pipe.name = "r", pipe.param}) -> tensor<2x3xf32>
// CHECK-SAME:      pipe.state_args = array<i64: 1>
// CHECK-NOT:     pipe.update_state
// CHECK:         return
// CHECK-LABEL: func.func private @main_stage0_fwd(
// CHECK-SAME:      %{{.*}}: tensor<2x3xf32> {pipe.name = "x"}, %[[FR:.*]]: tensor<1x3xf32> {pipe.frozen, pipe.name = "r", pipe.param}) -> (tensor<2x3xf32>, tensor<1x3xf32>)
// CHECK-NOT:     pipe.update_state
// CHECK:         %[[KEEP:.*]] = "tosa.const"() <{values = dense<0.899999976> : tensor<1x1xf32>}>
// CHECK:         %[[A:.*]] = tosa.mul %[[FR]], %[[KEEP]]
// CHECK:         %[[MOVE:.*]] = "tosa.const"() <{values = dense<1.000000e-01> : tensor<1x1xf32>}>
// CHECK:         %[[B:.*]] = tosa.mul %{{.*}}, %[[MOVE]]
// CHECK:         %[[NEW:.*]] = tosa.add %[[A]], %[[B]] : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK:         return %{{.*}}, %[[NEW]] : tensor<2x3xf32>, tensor<1x3xf32>
func.func @main(%x: tensor<4x3xf32> {pipe.name = "x"}, %r: tensor<1x3xf32> {pipe.name = "r", pipe.param, pipe.frozen}) -> tensor<f32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = pipe.batch_mean %x axes [0] : tensor<4x3xf32> -> tensor<1x3xf32>
  %d = tosa.sub %x, %m : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<1xi8>) -> tensor<4x3xf32>
  %v = pipe.batch_mean %sq axes [0] {correction = 1} : tensor<4x3xf32> -> tensor<1x3xf32>
  pipe.update_state %r, %v momentum 0.1 : tensor<1x3xf32>
  pipe.split
  %t = tosa.tanh %d : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %s0 = tosa.reduce_sum %t {axis = 0 : i32} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  %s1 = tosa.reduce_sum %s0 {axis = 1 : i32} : (tensor<1x3xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s1, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}

