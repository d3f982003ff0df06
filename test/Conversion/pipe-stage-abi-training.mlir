// RUN: pipewave-opt %s --pipe-recompute='policy=full report=false' --pipe-autodiff=split=true --pipe-lower-to-llvm | FileCheck %s

// pipe-isolate-stages keeps the functions pipe-autodiff made for a stage
// (pipe.fwd, pipe.bwd, pipe.bwd_input, pipe.bwd_weight) and moves the bodies
// of pipe.recompute regions in place; pipe-stage-abi gives each a
// pw_stage_fn wrapper: forward calls @S_fwd (results, then the stash), the
// others the backward functions, with the function's arguments, then its
// results, in order.

// CHECK-NOT: pipe.recompute
// CHECK:     llvm.func internal @s(
// CHECK:     llvm.func internal @s_fwd(
// CHECK:     llvm.func @pw_stage0_forward(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK:       llvm.call @s_fwd(
// CHECK:     llvm.func internal @s_bwd(
// CHECK:     llvm.func @pw_stage0_backward(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK:       llvm.call @s_bwd(
// CHECK:     llvm.func internal @s_bwd_input(
// CHECK:     llvm.func @pw_stage0_backward_input(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK:       llvm.call @s_bwd_input(
// CHECK:     llvm.func internal @s_bwd_weight(
// CHECK:     llvm.func @pw_stage0_backward_weight(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK:       llvm.call @s_bwd_weight(
// CHECK-NOT: pipe.recompute

func.func @s(%x: tensor<2x3xf32> {pipe.name = "x"}, %w: tensor<2x3xf32> {pipe.name = "w", pipe.param}) -> tensor<2x3xf32> attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %x, %w, %shift : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  %t = tosa.tanh %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}
