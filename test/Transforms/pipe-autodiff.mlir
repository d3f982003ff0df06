// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-autodiff | FileCheck %s
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-autodiff=split=true | FileCheck %s --check-prefix=SPLIT

// A two-layer network cut by hand into two stages: stage 0 computes
// h = tanh(x @ w0 + b0), stage 1 the squared error of h @ w1 against y.
// pipe-autodiff adds @<stage>_fwd and @<stage>_bwd (and, with split=true,
// @<stage>_bwd_input / @<stage>_bwd_weight) next to each stage function.

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %y: tensor<4x2xf32> {pipe.name = "y"},
                %w0: tensor<1x8x8xf32> {pipe.param, pipe.name = "w0"},
                %b0: tensor<1x8xf32> {pipe.param, pipe.name = "b0"},
                %w1: tensor<1x8x2xf32> {pipe.param, pipe.name = "w1"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[4, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s2o = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s0 = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %m0 = tosa.matmul %x3, %w0, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %m0r = tosa.reshape %m0, %s2 : (tensor<1x4x8xf32>, !tosa.shape<2>) -> tensor<4x8xf32>
  %a0 = tosa.add %m0r, %b0 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %h = tosa.tanh %a0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %h3 = tosa.reshape %h, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %m1 = tosa.matmul %h3, %w1, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x2xf32>
  %m1r = tosa.reshape %m1, %s2o : (tensor<1x4x2xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
  %d = tosa.sub %m1r, %y : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xi8>) -> tensor<4x2xf32>
  %r0 = tosa.reduce_sum %sq {axis = 0 : i32} : (tensor<4x2xf32>) -> tensor<1x2xf32>
  %r1 = tosa.reduce_sum %r0 {axis = 1 : i32} : (tensor<1x2xf32>) -> tensor<1x1xf32>
  %loss = tosa.reshape %r1, %s0 : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %loss : tensor<f32>
}

// Stage 0: x is a data input (no gradient); w0 and b0 are parameters.
// CHECK-LABEL: func.func private @main_stage0(
// CHECK-SAME: attributes {pipe.bwd = @main_stage0_bwd, pipe.fwd = @main_stage0_fwd, pipe.grad_args = array<i64: 1, 2>, pipe.stage = 0 : i64}

// The forward returns h, then the stash: h again, which tanh's rule reads.
// x @ w0 needs x (an argument) and w0 (an argument): nothing else is stashed.
// CHECK-LABEL: func.func private @main_stage0_fwd(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {pipe.name = "x"}, %{{.*}}: tensor<1x8x8xf32> {pipe.name = "w0", pipe.param}, %{{.*}}: tensor<1x8xf32> {pipe.name = "b0", pipe.param})
// CHECK-SAME: -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NOT: pipe.stage
// CHECK: %[[H:.*]] = tosa.tanh
// CHECK: return %[[H]], %[[H]] : tensor<4x8xf32>, tensor<4x8xf32>

// The backward: (all arguments, the stash, d_h) -> (d_w0, d_b0).
// CHECK-LABEL: func.func private @main_stage0_bwd(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32> {pipe.name = "x"}, %{{.*}}: tensor<1x8x8xf32> {pipe.name = "w0", pipe.param}, %{{.*}}: tensor<1x8xf32> {pipe.name = "b0", pipe.param},
// CHECK-SAME: %[[SH:[^:]*]]: tensor<4x8xf32>, %[[DH:[^:]*]]: tensor<4x8xf32>) -> (tensor<1x8x8xf32>, tensor<1x8xf32>)
// tanh: da = dh * (1 - h * h)
// CHECK: %[[HH:.*]] = tosa.mul %[[SH]], %[[SH]]
// CHECK: %[[OMH:.*]] = tosa.sub %{{.*}}, %[[HH]]
// CHECK: %[[DA:.*]] = tosa.mul %[[DH]], %[[OMH]]
// add with a broadcast bias: db0 = sum of da over the batch
// CHECK: %[[DB:.*]] = tosa.reduce_sum %[[DA]] {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
// matmul: dw0 = x^T @ da, with x reshaped again from the argument
// CHECK: %[[DA3:.*]] = tosa.reshape %[[DA]]
// CHECK: %[[X3:.*]] = tosa.reshape %[[X]]
// CHECK: %[[XT:.*]] = tosa.transpose %[[X3]] {perms = array<i32: 0, 2, 1>}
// CHECK: %[[DW:.*]] = tosa.matmul %[[XT]], %[[DA3]]
// CHECK: return %[[DW]], %[[DB]] : tensor<1x8x8xf32>, tensor<1x8xf32>

// Stage 1: w1 (parameter) and the activation h (argument 2) get gradients,
// y does not.
// CHECK-LABEL: func.func private @main_stage1(
// CHECK-SAME: attributes {pipe.bwd = @main_stage1_bwd, pipe.fwd = @main_stage1_fwd, pipe.grad_args = array<i64: 0, 2>, pipe.stage = 1 : i64}
// The stash is the difference d = h @ w1 - y that d * d reads.
// CHECK-LABEL: func.func private @main_stage1_fwd(
// CHECK-SAME: -> (tensor<f32>, tensor<4x2xf32>)
// CHECK: %[[D:.*]] = tosa.sub
// CHECK: return %{{.*}}, %[[D]] : tensor<f32>, tensor<4x2xf32>
// The last argument is d_loss, which the caller seeds with 1.
// CHECK-LABEL: func.func private @main_stage1_bwd(
// CHECK-SAME: %[[W1:[^:]*]]: tensor<1x8x2xf32> {pipe.name = "w1", pipe.param}, %{{.*}}: tensor<4x2xf32> {pipe.name = "y"}, %{{.*}}: tensor<4x8xf32>,
// CHECK-SAME: %[[SD:[^:]*]]: tensor<4x2xf32>, %[[DL:[^:]*]]: tensor<f32>) -> (tensor<1x8x2xf32>, tensor<4x8xf32>)
// reduce_sum / reshape to a scalar: d_loss is tiled back
// CHECK: tosa.reshape %[[DL]]
// CHECK: tosa.tile
// CHECK: %[[DSQ:.*]] = tosa.tile
// d * d: both operands get dsq * d; they add up
// CHECK: %[[G:.*]] = tosa.mul %[[DSQ]], %[[SD]]
// CHECK: %[[G2:.*]] = tosa.add %[[G]], %[[G]]
// CHECK: %[[G3:.*]] = tosa.reshape %[[G2]]
// CHECK: %[[W1T:.*]] = tosa.transpose %[[W1]] {perms = array<i32: 0, 2, 1>}
// CHECK: %[[DH3:.*]] = tosa.matmul %[[G3]], %[[W1T]]
// CHECK: %[[DW1:.*]] = tosa.matmul %{{.*}}, %[[G3]]
// CHECK: %[[DH:.*]] = tosa.reshape %[[DH3]]
// CHECK: return %[[DW1]], %[[DH]] : tensor<1x8x2xf32>, tensor<4x8xf32>
// The entry (the composition of the stages) is unchanged.
// CHECK-LABEL: func.func @main(
// CHECK-NEXT: call @main_stage0(
// CHECK-NEXT: call @main_stage1(

// With split=true: @<stage>_bwd_input returns the activation gradients, then
// the weight stash values it computes; @<stage>_bwd_weight takes the weight
// stash alone, and pipe.wstash_args says which of its arguments are
// @<stage>_bwd_input's own arguments passed through (index) rather than
// returned (-1).
// SPLIT-LABEL: func.func private @main_stage0(
// SPLIT-SAME: attributes {pipe.bwd = @main_stage0_bwd, pipe.bwd_input = @main_stage0_bwd_input, pipe.bwd_weight = @main_stage0_bwd_weight, pipe.fwd = @main_stage0_fwd, pipe.grad_args = array<i64: 1, 2>, pipe.stage = 0 : i64, pipe.wstash_args = array<i64: 3, 4, 0>}
// SPLIT: func.func private @main_stage0_fwd(
// SPLIT: func.func private @main_stage0_bwd(
// Stage 0 has no activation input: the input half has nothing to compute
// (the stash, d_h and x go to the weight half as they are); the weight half
// does all the work.
// SPLIT-LABEL: func.func private @main_stage0_bwd_input(
// SPLIT-SAME: %{{[^:]*}}: tensor<4x8xf32> {pipe.name = "x"}, %{{.*}}: tensor<1x8x8xf32> {pipe.name = "w0", pipe.param}, %{{.*}}: tensor<1x8xf32> {pipe.name = "b0", pipe.param},
// SPLIT-SAME: %{{[^:]*}}: tensor<4x8xf32>, %{{[^:]*}}: tensor<4x8xf32>) {
// SPLIT-NEXT: return{{$}}
// SPLIT-LABEL: func.func private @main_stage0_bwd_weight(
// SPLIT-SAME: %{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<4x8xf32>) -> (tensor<1x8x8xf32>, tensor<1x8xf32>)
// SPLIT: tosa.reduce_sum
// SPLIT: tosa.matmul
// SPLIT-NEXT: return
// SPLIT-LABEL: func.func private @main_stage1(
// SPLIT-SAME: pipe.bwd_input = @main_stage1_bwd_input, pipe.bwd_weight = @main_stage1_bwd_weight
// SPLIT-SAME: pipe.wstash_args = array<i64: 2, -1>
// Stage 1: the input half computes d_h (one matmul by w1^T) and the output
// cotangent; h (its argument 2) goes to the weight half as it is, which
// computes d_w1 = h^T @ g.
// SPLIT-LABEL: func.func private @main_stage1_bwd_input(
// SPLIT-SAME: %{{[^:]*}}: tensor<4x8xf32>, %{{.*}}: tensor<4x2xf32>, %{{.*}}: tensor<f32>) -> (tensor<4x8xf32>, tensor<1x4x2xf32>)
// SPLIT-COUNT-1: tosa.matmul
// SPLIT-NOT: tosa.matmul
// SPLIT: return %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<1x4x2xf32>
// SPLIT-LABEL: func.func private @main_stage1_bwd_weight(
// SPLIT-SAME: %[[WH:[^:]*]]: tensor<4x8xf32>, %[[WG:[^:]*]]: tensor<1x4x2xf32>) -> tensor<1x8x2xf32>
// SPLIT: %[[H3:.*]] = tosa.reshape %[[WH]]
// SPLIT: %[[HT:.*]] = tosa.transpose %[[H3]]
// SPLIT: %[[DW1:.*]] = tosa.matmul %[[HT]], %[[WG]]
// SPLIT-NEXT: return %[[DW1]] : tensor<1x8x2xf32>
