// RUN: pipewave-opt %s --pass-pipeline='builtin.module(func.func(pipe-matmul-vectorize{min-nr=8 choice=*:blas,nn-square:vector,tn-skinny-k:vector}))' | FileCheck %s
// RUN: pipewave-opt %s --pass-pipeline='builtin.module(func.func(pipe-matmul-vectorize{min-nr=8 choice=*:vector,nn-*:blas}))' | FileCheck %s --check-prefix=LAYOUT
// RUN: pipewave-opt %s --pass-pipeline='builtin.module(func.func(pipe-matmul-vectorize{min-nr=8}))' | FileCheck %s --check-prefix=ALL

// With `choice`, pipe-matmul-vectorize tiles only the matmuls whose class
// (layout: which operand is a transposed copy; shape: small, skinny-m/n/k,
// square) the rules give to `vector`; the others stay linalg for
// pipe-matmul-to-blas. Without `choice` it tiles every matmul.

// CHECK-LABEL: func.func @nn_square
// CHECK:         vector.contract
// CHECK-NOT:     linalg.batch_matmul
// LAYOUT-LABEL:  func.func @nn_square
// LAYOUT:          linalg.batch_matmul
// LAYOUT-NOT:      vector.contract
// ALL-LABEL:     func.func @nn_square
// ALL:             vector.contract
func.func @nn_square(%a: tensor<1x64x128xf32>, %b: tensor<1x128x64xf32>) -> tensor<1x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x64x128xf32>, tensor<1x128x64xf32>) outs(%c : tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  return %r : tensor<1x64x64xf32>
}

// A skinny M (32 rows): not in the rules' vector classes.
// CHECK-LABEL: func.func @nn_skinny_m
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     vector.contract
// LAYOUT-LABEL:  func.func @nn_skinny_m
// LAYOUT:          linalg.batch_matmul
// ALL-LABEL:     func.func @nn_skinny_m
// ALL:             vector.contract
func.func @nn_skinny_m(%a: tensor<1x32x128xf32>, %b: tensor<1x128x128xf32>) -> tensor<1x32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x128xf32>) -> tensor<1x32x128xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x32x128xf32>, tensor<1x128x128xf32>) outs(%c : tensor<1x32x128xf32>) -> tensor<1x32x128xf32>
  return %r : tensor<1x32x128xf32>
}

// The weight gradient X^T dY: A a transposed copy, K the 32 samples.
// CHECK-LABEL: func.func @tn_skinny_k
// CHECK:         linalg.transpose
// CHECK:         vector.contract
// CHECK-NOT:     linalg.batch_matmul
// LAYOUT-LABEL:  func.func @tn_skinny_k
// LAYOUT:          vector.contract
func.func @tn_skinny_k(%x: tensor<1x32x128xf32>, %dy: tensor<1x32x128xf32>) -> tensor<1x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %t = tensor.empty() : tensor<1x128x32xf32>
  %xt = linalg.transpose ins(%x : tensor<1x32x128xf32>) outs(%t : tensor<1x128x32xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<1x128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x128xf32>) -> tensor<1x128x128xf32>
  %r = linalg.batch_matmul ins(%xt, %dy : tensor<1x128x32xf32>, tensor<1x32x128xf32>) outs(%c : tensor<1x128x128xf32>) -> tensor<1x128x128xf32>
  return %r : tensor<1x128x128xf32>
}

// A linalg.generic that only swaps the last two dimensions is a
// transposed copy too.
// CHECK-LABEL: func.func @tn_generic
// CHECK:         linalg.generic
// CHECK:         vector.contract
// CHECK-NOT:     linalg.batch_matmul
// LAYOUT-LABEL:  func.func @tn_generic
// LAYOUT:          vector.contract
#in = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @tn_generic(%x: tensor<1x32x128xf32>, %dy: tensor<1x32x128xf32>) -> tensor<1x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %t = tensor.empty() : tensor<1x128x32xf32>
  %xt = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x32x128xf32>) outs(%t : tensor<1x128x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<1x128x32xf32>
  %e = tensor.empty() : tensor<1x128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x128xf32>) -> tensor<1x128x128xf32>
  %r = linalg.batch_matmul ins(%xt, %dy : tensor<1x128x32xf32>, tensor<1x32x128xf32>) outs(%c : tensor<1x128x128xf32>) -> tensor<1x128x128xf32>
  return %r : tensor<1x128x128xf32>
}

// The input gradient dY W^T: B a transposed copy; a 2-D matmul.
// CHECK-LABEL: func.func @nt_skinny_k
// CHECK:         linalg.matmul
// CHECK-NOT:     vector.contract
// LAYOUT-LABEL:  func.func @nt_skinny_k
// LAYOUT:          vector.contract
// LAYOUT-NOT:      linalg.matmul
func.func @nt_skinny_k(%dy: tensor<128x32xf32>, %w: tensor<128x32xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %t = tensor.empty() : tensor<32x128xf32>
  %wt = linalg.transpose ins(%w : tensor<128x32xf32>) outs(%t : tensor<32x128xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%dy, %wt : tensor<128x32xf32>, tensor<32x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// A transpose of other dimensions is no transposed operand: nn.
// CHECK-LABEL: func.func @batch_perm_is_nn
// CHECK:         linalg.batch_matmul
// LAYOUT-LABEL:  func.func @batch_perm_is_nn
// LAYOUT:          linalg.batch_matmul
// LAYOUT-NOT:      vector.contract
func.func @batch_perm_is_nn(%x: tensor<32x2x128xf32>, %w: tensor<2x128x128xf32>) -> tensor<2x32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %t = tensor.empty() : tensor<2x32x128xf32>
  %xt = linalg.transpose ins(%x : tensor<32x2x128xf32>) outs(%t : tensor<2x32x128xf32>) permutation = [1, 0, 2]
  %e = tensor.empty() : tensor<2x32x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x128xf32>) -> tensor<2x32x128xf32>
  %r = linalg.batch_matmul ins(%xt, %w : tensor<2x32x128xf32>, tensor<2x128x128xf32>) outs(%c : tensor<2x32x128xf32>) -> tensor<2x32x128xf32>
  return %r : tensor<2x32x128xf32>
}
