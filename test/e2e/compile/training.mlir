// pipewave-compile on a training step (the entry returns a scalar loss):
// pipe-autodiff adds @S_fwd and @S_bwd (and @S_bwd_input / @S_bwd_weight
// when the schedule has I and W actions) for every microbatch-specialised
// stage; each gets a pw_stage_fn wrapper and the pw_model descriptor fills
// the training fields of model.h (ABI 2). Gradient values are checked by
// gradcheck.mlir.

// RUN: pipewave-compile %s --stages 2 --microbatches 2 --schedule zb-h1 --emit=pipe | FileCheck %s --check-prefix=PIPE
// RUN: pipewave-compile %s --stages 2 --microbatches 2 --schedule 1f1b --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: pipewave-compile %s --stages 2 --microbatches 2 --schedule zb-h1 --emit=mlir | FileCheck %s --check-prefix=SPLIT
// RUN: pipewave-compile %s --stages 2 --microbatches 2 --schedule zb-h1 --emit=llvm -O0 | FileCheck %s --check-prefix=DESC
// RUN: pipewave-compile %s --stages 2 --microbatches 2 --schedule gpipe --emit=llvm -O0 | FileCheck %s --check-prefix=NOSPLIT
// RUN: pipewave-compile %s --stages 2 --microbatches 2 --recompute=full --emit=pipe | FileCheck %s --check-prefix=FULL
// RUN: pipewave-compile %s --stages 2 --microbatches 2 --recompute=selective --emit=obj -o %t.o
// RUN: pipewave-compile %s --stages 2 --microbatches 2 --inference --emit=llvm -O0 | FileCheck %s --check-prefix=INFER
// RUN: not pipewave-compile %s --recompute=some --emit=obj -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=BAD

// Microbatch shapes (batch 4 / 2 microbatches) for every function; stage 1
// takes w1 (a parameter), y (data) and the activation, in that order.
// PIPE: func.func private @main_stage0(%arg0: tensor<2x3xf32> {{.*}}, %arg1: tensor<1x3x5xf32> {{.*}}) -> tensor<2x5xf32> attributes {pipe.bwd = @main_stage0_bwd, pipe.bwd_input = @main_stage0_bwd_input, pipe.bwd_weight = @main_stage0_bwd_weight, pipe.fwd = @main_stage0_fwd, pipe.grad_args = array<i64: 1>, pipe.stage = 0 : i64, pipe.wstash_args = array<i64: 2, 3, 0>}
// PIPE: func.func private @main_stage0_fwd(%arg0: tensor<2x3xf32> {{.*}}, %arg1: tensor<1x3x5xf32> {{.*}}) -> (tensor<2x5xf32>, tensor<2x5xf32>)
// PIPE: func.func private @main_stage0_bwd(
// PIPE: func.func private @main_stage0_bwd_input(
// PIPE: func.func private @main_stage0_bwd_weight(
// PIPE: func.func private @main_stage1({{.*}}) -> tensor<f32> attributes {{{.*}}pipe.grad_args = array<i64: 0, 2>, pipe.stage = 1 : i64, pipe.wstash_args = array<i64: 2, -1>}
// PIPE: func.func private @main_stage1_fwd(%arg0: tensor<1x5x2xf32> {{.*}}, %arg1: tensor<2x2xf32> {{.*}}, %arg2: tensor<2x5xf32>) -> (tensor<f32>,
// PIPE: func.func private @main_stage1_bwd({{.*}}) -> (tensor<1x5x2xf32>, tensor<2x5xf32>)
// PIPE: func.func private @main_stage1_bwd_input({{.*}}) -> (tensor<2x5xf32>,
// PIPE: func.func private @main_stage1_bwd_weight({{.*}}) -> tensor<1x5x2xf32>
// PIPE: sched.program

// MLIR: llvm.func internal @main_stage0_fwd(
// MLIR: llvm.func @pw_stage0_forward(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// MLIR: llvm.call @main_stage0_fwd(
// MLIR: llvm.func internal @main_stage0_bwd(
// MLIR: llvm.func @pw_stage0_backward(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// MLIR: llvm.call @main_stage0_bwd(
// MLIR: llvm.func @pw_stage1_forward(
// MLIR: llvm.call @main_stage1_fwd(
// MLIR: llvm.func @pw_stage1_backward(
// MLIR: llvm.call @main_stage1_bwd(
// MLIR-NOT: backward_input
// MLIR-NOT: backward_weight

// SPLIT: llvm.func @pw_stage0_forward(
// SPLIT: llvm.func @pw_stage0_backward(
// SPLIT: llvm.func @pw_stage0_backward_input(
// SPLIT: llvm.call @main_stage0_bwd_input(
// SPLIT: llvm.func @pw_stage0_backward_weight(
// SPLIT: llvm.call @main_stage0_bwd_weight(
// SPLIT: llvm.func @pw_stage1_backward_input(
// SPLIT: llvm.func @pw_stage1_backward_weight(

// The descriptor: stage 0 stashes one 2x5 value, differentiates argument 1
// (w0; x is data) and keeps three values for its W; stage 1 gets the
// gradients of w1 (0) and the activation (2). The four i64 after the weight
// stash are the workspace bytes of forward, backward, backward_input and
// backward_weight (pipe-plan-workspace; ABI 5); then the accumulating
// variants of backward and backward_weight, which of the grad args they add
// to the caller's buffer (3: both, w0 and w1; 0: the activation), and their
// workspace bytes (ABI 6). Stage 0's I passes all three W values through
// (wstash_source: its stash, d_h and x; ABI 7), so it returns nothing and
// needs no workspace; stage 1's I passes the activation through and
// computes the other.
// DESC: @__pw_stash.[[S0STASH:[0-9]+]] = {{.*}} [1 x %struct.pw_tensor_info] [%struct.pw_tensor_info { ptr @{{.*}}, i32 0, i32 2, ptr @__pw_shape.[[S0SHAPE:[0-9]+]] }]
// DESC: @__pw_result_has_grad.[[S0HAS:[0-9]+]] = {{.*}} [1 x i32] [i32 1]
// DESC: @__pw_grad_args.[[S0GRAD:[0-9]+]] = {{.*}} [1 x i32] [i32 1]
// DESC: @__pw_wstash.[[S0W:[0-9]+]] = {{.*}} [3 x %struct.pw_tensor_info]
// DESC: @__pw_wstash_source.[[S0WS:[0-9]+]] = {{.*}} [3 x i32] [i32 2, i32 3, i32 0]
// DESC: @__pw_grad_accumulates.[[S0ACC:[0-9]+]] = {{.*}} [1 x i32] [i32 3]
// DESC: @__pw_grad_args.[[S1GRAD:[0-9]+]] = {{.*}} [2 x i32] [i32 0, i32 2]
// DESC: @__pw_wstash.[[S1W:[0-9]+]] = {{.*}} [2 x %struct.pw_tensor_info]
// DESC: @__pw_wstash_source.[[S1WS:[0-9]+]] = {{.*}} [2 x i32] [i32 2, i32 -1]
// DESC: @__pw_grad_accumulates.[[S1ACC:[0-9]+]] = {{.*}} [2 x i32] [i32 3, i32 0]
// DESC: @__pw_stages.{{[0-9]+}} = {{.*}} [2 x %struct.pw_stage] [%struct.pw_stage { i32 2, {{.*}}, ptr @pw_stage0_forward, i32 1, ptr @__pw_stash.[[S0STASH]], ptr @__pw_result_has_grad.[[S0HAS]], i32 1, ptr @__pw_grad_args.[[S0GRAD]], ptr @pw_stage0_backward, ptr @pw_stage0_backward_input, ptr @pw_stage0_backward_weight, i32 3, ptr @__pw_wstash.[[S0W]], ptr @__pw_wstash_source.[[S0WS]], i32 0, ptr null, i64 128, i64 64, i64 0, i64 64, ptr @pw_stage0_backward_acc, ptr @pw_stage0_backward_weight_acc, ptr @__pw_grad_accumulates.[[S0ACC]], i64 64, i64 64 }, %struct.pw_stage { i32 3, {{.*}}, ptr @pw_stage1_forward, i32 1, ptr @{{.*}}, ptr @{{.*}}, i32 2, ptr @__pw_grad_args.[[S1GRAD]], ptr @pw_stage1_backward, ptr @pw_stage1_backward_input, ptr @pw_stage1_backward_weight, i32 2, ptr @__pw_wstash.[[S1W]], ptr @__pw_wstash_source.[[S1WS]], i32 0, ptr null, i64 192, i64 128, i64 128, i64 0, ptr @pw_stage1_backward_acc, ptr @pw_stage1_backward_weight_acc, ptr @__pw_grad_accumulates.[[S1ACC]], i64 128, i64 0 }]
// The model is not forward-only (the seventh field).
// DESC: @__pw_model = internal constant %struct.pw_model { i32 9, ptr @{{.*}}, ptr @{{.*}}, i32 2, i32 2, i32 2, i32 0,
// DESC: define void @pw_stage0_backward_input(ptr %0, ptr %1)
// DESC: define void @pw_stage1_backward_weight(ptr %0, ptr %1)

// Without I and W actions there are no split functions (null, 0 wstash;
// no state either), and only the accumulating backward.
// NOSPLIT: ptr @pw_stage0_backward, ptr null, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, i64 128, i64 64, i64 0, i64 0, ptr @pw_stage0_backward_acc, ptr null, ptr @{{[^,]+}}, i64 64, i64 0 }
// NOSPLIT: ptr @pw_stage1_backward, ptr null, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, i64 192, i64 128, i64 0, i64 0, ptr @pw_stage1_backward_acc, ptr null, ptr @{{[^,]+}}, i64 128, i64 0 }
// NOSPLIT-NOT: backward_input

// --inference: no training functions; the forward is the stage itself.
// INFER: ptr @pw_stage0_forward, i32 0, ptr null, ptr null, i32 0, ptr null, ptr null, ptr null, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, i64 128, i64 0, i64 0, i64 0, ptr null, ptr null, ptr null, i64 0, i64 0 }
// INFER: ptr @pw_stage1_forward, i32 0, ptr null, ptr null, i32 0, ptr null, ptr null, ptr null, ptr null, i32 0, ptr null, ptr null, i32 0, ptr null, i64 128, i64 0, i64 0, i64 0, ptr null, ptr null, ptr null, i64 0, i64 0 }
// INFER-NOT: backward

// FULL: pipe.recompute
// FULL: func.func private @main_stage0_fwd(

// BAD: error: --recompute=some: expected none, full or selective

func.func @main(%x: tensor<4x3xf32> {pipe.name = "x"},
                %y: tensor<4x2xf32> {pipe.name = "y"},
                %w0: tensor<1x3x5xf32> {pipe.name = "w0", pipe.param},
                %w1: tensor<1x5x2xf32> {pipe.name = "w1", pipe.param}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[1, 4, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[4, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %a = tosa.reshape %x, %s3 : (tensor<4x3xf32>, !tosa.shape<3>) -> tensor<1x4x3xf32>
  %m = tosa.matmul %a, %w0, %zp, %zp : (tensor<1x4x3xf32>, tensor<1x3x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x5xf32>
  %r = tosa.reshape %m, %s2 : (tensor<1x4x5xf32>, !tosa.shape<2>) -> tensor<4x5xf32>
  %h = tosa.tanh %r : (tensor<4x5xf32>) -> tensor<4x5xf32>
  pipe.split
  %s3b = tosa.const_shape {values = dense<[1, 4, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2b = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.reshape %h, %s3b : (tensor<4x5xf32>, !tosa.shape<3>) -> tensor<1x4x5xf32>
  %o = tosa.matmul %b, %w1, %zp, %zp : (tensor<1x4x5xf32>, tensor<1x5x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x2xf32>
  %o2 = tosa.reshape %o, %s2b : (tensor<1x4x2xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
  %d = tosa.sub %o2, %y : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xi8>) -> tensor<4x2xf32>
  %r0 = tosa.reduce_sum %sq {axis = 0 : i32} : (tensor<4x2xf32>) -> tensor<1x2xf32>
  %r1 = tosa.reduce_sum %r0 {axis = 1 : i32} : (tensor<1x2xf32>) -> tensor<1x1xf32>
  %s0 = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %r1, %s0 : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
