// RUN: split-file %s %t
// RUN: pipewave-opt %t/returns.mlir --pass-pipeline='builtin.module(func.func(pipe-unique-result-buffers))' | FileCheck %s
// RUN: pipewave-opt %t/returns.mlir --pass-pipeline='builtin.module(func.func(pipe-unique-result-buffers),buffer-results-to-out-params{add-result-attr hoist-static-allocs})' | FileCheck %s --check-prefix=OUTPARAMS
// RUN: pipewave-compile %t/model.mlir --stages 2 --microbatches 1 --schedule zb-h1 --emit=pipe | FileCheck %s --check-prefix=PIPE
// RUN: pipewave-compile %t/model.mlir --stages 2 --microbatches 1 --schedule zb-h1 --emit=mlir | FileCheck %s --check-prefix=LOWERED

// pipe-unique-result-buffers runs in pipe-lower-to-llvm between one-shot
// bufferization and buffer-results-to-out-params{hoist-static-allocs}. An
// allocation a function returns more than once made that pass erase the
// allocation at its first result and then use it for the next (a crash):
// the bwd_input function of a split backward returns an input gradient
// both as a result and in the stash for bwd_weight (model.mlir: stage 1's
// input gradient is the gradient of tanh's input, which the bias gradient
// also needs).

// CHECK-LABEL: func.func private @twice(
// CHECK:         %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK:         memref.copy %arg0, %[[A]]
// CHECK:         %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[B]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[C]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]] :

// CHECK-LABEL: func.func private @dynamic(
// CHECK:         %[[A:.*]] = memref.alloc(%arg0) : memref<?xf32>
// CHECK-NEXT:    %[[B:.*]] = memref.alloc(%arg0) : memref<?xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[B]]
// CHECK-NEXT:    return %[[A]], %[[B]] :

// CHECK-LABEL: func.func private @others(
// CHECK:         %[[V:.*]] = memref.expand_shape %arg0
// CHECK-NEXT:    %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    return %arg0, %arg0, %[[V]], %[[V]], %[[A]], %[[B]] :

// After the out-param rewrite every result is written through its own
// out-parameter: the first holds the allocation's value, the others copy it.
// OUTPARAMS-LABEL: func.func private @twice(%arg0: memref<4xf32>, %arg1: memref<4xf32> {bufferize.result}, %arg2: memref<4xf32> {bufferize.result}, %arg3: memref<4xf32> {bufferize.result}) {
// OUTPARAMS-NEXT:    memref.copy %arg0, %arg1
// OUTPARAMS-NEXT:    memref.copy %arg1, %arg2
// OUTPARAMS-NEXT:    memref.copy %arg1, %arg3
// OUTPARAMS-NEXT:    return
// OUTPARAMS-LABEL: func.func private @dynamic(%arg0: index, %arg1: memref<?xf32> {bufferize.result}, %arg2: memref<?xf32> {bufferize.result}) {
// OUTPARAMS:         memref.copy %{{.*}}, %arg1
// OUTPARAMS-NEXT:    memref.copy %{{.*}}, %arg2
// OUTPARAMS-LABEL: func.func private @others(
// OUTPARAMS:         memref.copy %arg0, %arg1
// OUTPARAMS-NEXT:    memref.copy %arg0, %arg2
// OUTPARAMS-NEXT:    memref.copy %{{.*}}, %arg3
// OUTPARAMS-NEXT:    memref.copy %{{.*}}, %arg4
// OUTPARAMS-NEXT:    return

// The model's stage 1 input-gradient function returns one tensor twice, and
// lowers to its ABI wrapper.
// PIPE-LABEL: func.func private @main_stage1_bwd_input(
// PIPE:         return %[[G:[0-9]+]], %{{.*}}, %[[G]] :
// LOWERED: llvm.func internal @main_stage1_bwd_input(
// LOWERED: llvm.func @pw_stage1_backward_input(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// LOWERED:   llvm.call @main_stage1_bwd_input(
// LOWERED: llvm.func @pw_stage1_backward_weight(

//--- returns.mlir
// One allocation returned three times: the second and third results get a
// fresh buffer each, a copy of the first.
func.func private @twice(%arg0: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  memref.copy %arg0, %a : memref<4xf32> to memref<4xf32>
  return %a, %a, %a : memref<4xf32>, memref<4xf32>, memref<4xf32>
}

// Dynamic sizes are those of the original allocation.
func.func private @dynamic(%n: index) -> (memref<?xf32>, memref<?xf32>) {
  %a = memref.alloc(%n) : memref<?xf32>
  return %a, %a : memref<?xf32>, memref<?xf32>
}

// Arguments and views returned twice are left to the out-param rewrite,
// which copies them; distinct allocations are untouched.
func.func private @others(%arg0: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<2x2xf32>, memref<2x2xf32>, memref<4xf32>, memref<4xf32>) {
  %v = memref.expand_shape %arg0 [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  return %arg0, %arg0, %v, %v, %a, %b : memref<4xf32>, memref<4xf32>, memref<2x2xf32>, memref<2x2xf32>, memref<4xf32>, memref<4xf32>
}

//--- model.mlir
// x (data) -> matmul w0 | stage 1: tanh(h + b) -> matmul w1 -> squared error.
func.func @main(%x: tensor<1x4x3xf32> {pipe.name = "x"},
                %y: tensor<1x4x2xf32> {pipe.name = "y"},
                %w0: tensor<1x3x5xf32> {pipe.name = "w0", pipe.param},
                %b: tensor<1x1x5xf32> {pipe.name = "b", pipe.param},
                %w1: tensor<1x5x2xf32> {pipe.name = "w1", pipe.param}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %h = tosa.matmul %x, %w0, %zp, %zp : (tensor<1x4x3xf32>, tensor<1x3x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x5xf32>
  pipe.split
  %z = tosa.add %h, %b : (tensor<1x4x5xf32>, tensor<1x1x5xf32>) -> tensor<1x4x5xf32>
  %t = tosa.tanh %z : (tensor<1x4x5xf32>) -> tensor<1x4x5xf32>
  %o = tosa.matmul %t, %w1, %zp, %zp : (tensor<1x4x5xf32>, tensor<1x5x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x2xf32>
  %d = tosa.sub %o, %y : (tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1xi8>) -> tensor<1x4x2xf32>
  %r0 = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<1x4x2xf32>) -> tensor<1x1x2xf32>
  %r1 = tosa.reduce_sum %r0 {axis = 2 : i32} : (tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
  %s0 = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %r1, %s0 : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
