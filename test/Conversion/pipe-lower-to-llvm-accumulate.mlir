// RUN: pipewave-opt %s --pipe-autodiff=split=true --pipe-lower-to-llvm=matmul=blas | FileCheck %s
// RUN: pipewave-opt %s --pipe-autodiff=split=true --pipe-lower-to-llvm='matmul=blas accumulate=false' | FileCheck %s --check-prefix=OFF

// pipe-lower-to-llvm gives the backward and the weight-gradient function an
// accumulating variant (pipe-accumulate-gradients) whose weight gradient is
// one sgemm with beta = 1 on the accumulator; pipe-stage-abi's wrapper
// passes the result buffer as the accumulator too (so the copy of one into
// the other is gone) and records which results accumulate.

// CHECK: module attributes {pipewave.accumulating = {pw_stage0_backward_acc = array<i32: 1>, pw_stage0_backward_weight_acc = array<i32: 1>}

// CHECK-LABEL: llvm.func internal @s_bwd_weight(
// CHECK:         llvm.mlir.constant(0.000000e+00 : f32)
// CHECK:         llvm.call @pw_sgemm_batched(

// CHECK-LABEL: llvm.func internal @s_bwd_weight_acc(
// CHECK-NOT:     llvm.mlir.constant(0.000000e+00 : f32)
// CHECK-NOT:     memcpy
// CHECK:         %[[ONE:.+]] = llvm.mlir.constant(1.000000e+00 : f32)
// CHECK-NOT:     memcpy
// CHECK:         llvm.call @pw_sgemm_batched(%[[ONE]],
// CHECK-NOT:     memcpy
// CHECK:         llvm.return

// The wrapper: the weight stash and the workspace from `args`, the result
// buffer twice from `results` (the accumulator, then the out-parameter).
// CHECK-LABEL: llvm.func @pw_stage0_backward_weight_acc(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK-COUNT-2: llvm.load %arg1 : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.call @s_bwd_weight_acc(

// OFF-NOT: _acc
// OFF-NOT: pipewave.accumulating

func.func @s(%x: tensor<1x4x8xf32> {pipe.name = "x"}, %w: tensor<1x8x16xf32> {pipe.name = "w", pipe.param}) -> tensor<1x4x16xf32> attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %t = tosa.tanh %m : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  return %t : tensor<1x4x16xf32>
}
