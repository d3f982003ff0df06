// RUN: pipewave-opt %s --split-input-file --pipe-fuse-elementwise | FileCheck %s
// RUN: pipewave-opt %s --split-input-file --linalg-fuse-elementwise-ops | FileCheck %s --check-prefix=UPSTREAM

// The attention's head split feeding a batch matmul (transpose, reshape
// [2, 4, 64, 32] -> [8, 64, 32]) and the head merge of its result (reshape
// [8, 64, 64] -> [2, 4, 64, 64], then an element-wise op): the reshapes stay
// next to the linalg.batch_matmul, which the matmul lowerings recognise.
// Upstream linalg-fuse-elementwise-ops folds both into the matmul, which
// becomes a 4-D linalg.generic contraction.

// CHECK-LABEL: func.func @attention_scores
// CHECK:         %[[T:.*]] = linalg.transpose
// CHECK:         %[[Q:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
// CHECK:         %[[S:.*]] = linalg.batch_matmul ins(%[[Q]], %{{.*}} : tensor<8x64x32xf32>, tensor<8x32x64xf32>)
// CHECK:         %[[S4:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 4, 64, 64]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[S4]] : tensor<2x4x64x64xf32>)
// CHECK:           math.exp
// CHECK-NOT:     linalg.generic

// UPSTREAM-LABEL: func.func @attention_scores
// UPSTREAM-NOT:     linalg.batch_matmul
// UPSTREAM:         linalg.generic
// UPSTREAM-SAME:      "reduction"
// UPSTREAM:           arith.mulf
// UPSTREAM:           arith.addf
func.func @attention_scores(%q: tensor<2x64x4x32xf32>, %k: tensor<8x32x64xf32>)
    -> tensor<2x4x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x64x32xf32>
  %t = linalg.transpose ins(%q : tensor<2x64x4x32xf32>)
      outs(%e : tensor<2x4x64x32xf32>) permutation = [0, 2, 1, 3]
  %qh = tensor.collapse_shape %t [[0, 1], [2], [3]]
      : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
  %se = tensor.empty() : tensor<8x64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%se : tensor<8x64x64xf32>)
      -> tensor<8x64x64xf32>
  %s = linalg.batch_matmul ins(%qh, %k : tensor<8x64x32xf32>, tensor<8x32x64xf32>)
      outs(%z : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 4, 64, 64]
      : tensor<8x64x64xf32> into tensor<2x4x64x64xf32>
  %oe = tensor.empty() : tensor<2x4x64x64xf32>
  %p = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s4 : tensor<2x4x64x64xf32>) outs(%oe : tensor<2x4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<2x4x64x64xf32>
  return %p : tensor<2x4x64x64xf32>
}

// -----

// linalg.matmul: a collapsing reshape of its input stays outside too.
// CHECK-LABEL: func.func @matmul_input
// CHECK:         tensor.collapse_shape
// CHECK:         linalg.matmul
// CHECK-NOT:     linalg.generic
// UPSTREAM-LABEL: func.func @matmul_input
// UPSTREAM-NOT:     linalg.matmul
// UPSTREAM:         linalg.generic
func.func @matmul_input(%a: tensor<4x8x16xf32>, %b: tensor<16x8xf32>,
                        %c: tensor<32x8xf32>) -> tensor<32x8xf32> {
  %a2 = tensor.collapse_shape %a [[0, 1], [2]]
      : tensor<4x8x16xf32> into tensor<32x16xf32>
  %r = linalg.matmul ins(%a2, %b : tensor<32x16xf32>, tensor<16x8xf32>)
      outs(%c : tensor<32x8xf32>) -> tensor<32x8xf32>
  return %r : tensor<32x8xf32>
}

// -----

// Element-wise chains still become one loop nest, and reshapes still
// propagate through element-wise ops (as upstream).
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}} : tensor<2x4x8xf32>)
// CHECK:           math.exp
// CHECK:           arith.mulf
// CHECK-NOT:     linalg.generic
// CHECK:         tensor.collapse_shape
// CHECK-SAME:      tensor<2x4x8xf32> into tensor<8x8xf32>
func.func @elementwise_chain(%x: tensor<2x4x8xf32>) -> tensor<8x8xf32> {
  %x2 = tensor.collapse_shape %x [[0, 1], [2]]
      : tensor<2x4x8xf32> into tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %a = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x2 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %b = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %in : f32
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}
