// RUN: pipewave-opt %s --split-input-file --pipe-accumulate-gradients | FileCheck %s

// The backward of a stage whose argument 0 is an activation and arguments
// 1-3 are parameters: the parameter gradients made by a matmul, a reduction
// that adds into its init, and a matmul reshaped on its way out accumulate
// in @s_bwd_acc; the activation gradient is written as before.

// CHECK-LABEL: func.func private @s(
// CHECK-SAME:    pipewave.bwd_acc = @s_bwd_acc

// CHECK-LABEL: func.func private @s_bwd(
// CHECK-COUNT-4: linalg.fill

// CHECK-LABEL: func.func private @s_bwd_acc(
// CHECK-SAME:    %[[DY:[^:]+]]: tensor<4x16xf32>,
// CHECK-SAME:    %[[DW:[^:]+]]: tensor<8x16xf32> {bufferization.writable = true, pipewave.accumulates = 1 : i64},
// CHECK-SAME:    %[[DB:[^:]+]]: tensor<16xf32> {bufferization.writable = true, pipewave.accumulates = 2 : i64},
// CHECK-SAME:    %[[DV:[^:]+]]: tensor<1x8x16xf32> {bufferization.writable = true, pipewave.accumulates = 3 : i64})
// CHECK:         %[[ZERO:.+]] = linalg.fill
// CHECK:         %[[DX:.+]] = linalg.matmul {{.*}}outs(%[[ZERO]] :
// CHECK-NOT:     linalg.fill
// CHECK:         %[[GW:.+]] = linalg.matmul {{.*}}outs(%[[DW]] :
// CHECK:         %[[GB:.+]] = linalg.generic {{.*}}outs(%[[DB]] :
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %[[DV]] {{\[}}[0, 1], [2]]
// CHECK:         %[[GV:.+]] = linalg.matmul {{.*}}outs(%[[FLAT]] :
// CHECK:         %[[OUT:.+]] = tensor.expand_shape %[[GV]]
// CHECK:         return %[[DX]], %[[GW]], %[[GB]], %[[OUT]]

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func private @s(%x: tensor<4x8xf32>, %w: tensor<8x16xf32> {pipe.param}, %b: tensor<16xf32> {pipe.param}, %v: tensor<1x8x16xf32> {pipe.param}) -> tensor<4x16xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @s_fwd, pipe.bwd = @s_bwd, pipe.grad_args = array<i64: 0, 1, 2, 3>} {
  %0 = tensor.empty() : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func private @s_fwd(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>, %v: tensor<1x8x16xf32>) -> tensor<4x16xf32> {
  %0 = tensor.empty() : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func private @s_bwd(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>, %v: tensor<1x8x16xf32>, %xt: tensor<8x4xf32>, %wt: tensor<16x8xf32>, %dy: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<1x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %dx = linalg.matmul ins(%dy, %wt : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %db = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<4x16xf32>) outs(%f2 : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<8x16xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %g3 = linalg.matmul ins(%xt, %dy : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dv = tensor.expand_shape %g3 [[0, 1], [2]] output_shape [1, 8, 16] : tensor<8x16xf32> into tensor<1x8x16xf32>
  return %dx, %dw, %db, %dv : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<1x8x16xf32>
}

// -----

// Results that cannot accumulate: a generic that multiplies its init, a
// value returned twice, a fill that is not zero. No variant is made.

// CHECK-LABEL: func.func private @t(
// CHECK-NOT:     pipewave.bwd_acc
// CHECK-NOT:   func.func private @t_bwd_acc

#id = affine_map<(d0) -> (d0)>

func.func private @t(%w: tensor<16xf32> {pipe.param}, %u: tensor<16xf32> {pipe.param}, %v: tensor<16xf32> {pipe.param}, %z: tensor<16xf32> {pipe.param}) -> tensor<16xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @t_fwd, pipe.bwd = @t_bwd, pipe.grad_args = array<i64: 0, 1, 2, 3>} {
  return %w : tensor<16xf32>
}

func.func private @t_fwd(%w: tensor<16xf32>, %u: tensor<16xf32>, %v: tensor<16xf32>, %z: tensor<16xf32>) -> tensor<16xf32> {
  return %w : tensor<16xf32>
}

func.func private @t_bwd(%w: tensor<16xf32>, %u: tensor<16xf32>, %v: tensor<16xf32>, %z: tensor<16xf32>, %dy: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%dy : tensor<16xf32>) outs(%f0 : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %p = arith.mulf %in, %acc : f32
    linalg.yield %p : f32
  } -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%dy : tensor<16xf32>) outs(%f1 : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %f2 = linalg.fill ins(%one : f32) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %ones = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%dy : tensor<16xf32>) outs(%f2 : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %m, %twice, %twice, %ones : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// The weight half of a split backward: every result is a parameter
// gradient.

// CHECK-LABEL: func.func private @u(
// CHECK-SAME:    pipewave.bwd_weight_acc = @u_bwd_weight_acc
// CHECK-NOT:     pipewave.bwd_acc
// CHECK-LABEL: func.func private @u_bwd_weight_acc(
// CHECK-SAME:    %{{.+}}: tensor<8x16xf32> {bufferization.writable = true, pipewave.accumulates = 0 : i64})
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.matmul

func.func private @u(%x: tensor<4x8xf32>, %w: tensor<8x16xf32> {pipe.param}) -> tensor<4x16xf32> attributes {pipe.stage = 0 : i64, pipe.fwd = @u_fwd, pipe.bwd = @u_bwd, pipe.bwd_input = @u_bwd_input, pipe.bwd_weight = @u_bwd_weight, pipe.grad_args = array<i64: 1>} {
  %0 = tensor.empty() : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func private @u_fwd(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = tensor.empty() : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func private @u_bwd(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %dy: tensor<4x16xf32>) -> tensor<8x16xf32> {
  %0 = tensor.empty() : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

func.func private @u_bwd_input(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %dy: tensor<4x16xf32>) -> tensor<4x16xf32> {
  return %dy : tensor<4x16xf32>
}

func.func private @u_bwd_weight(%xt: tensor<8x4xf32>, %dy: tensor<4x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %dw : tensor<8x16xf32>
}
