// RUN: pipewave-opt %s --pipe-matmul-to-blas --split-input-file | FileCheck %s

// A linear layer and its ReLU (tosa.matmul, add of the bias, clamp, after
// bufferization): the product goes through the bias and the clamps straight
// into the element-wise op's result; its own buffer, fill and view go.
// CHECK-LABEL: func.func @linear_relu
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 3.40282347E+38 : f32
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         %[[H:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK:         %[[H3:.*]] = memref.expand_shape %[[H]] {{\[}}[0, 1], [2]] output_shape [1, 4, 8] : memref<4x8xf32> into memref<1x4x8xf32>
// CHECK:         %[[BIAS:.*]] = memref.collapse_shape %arg2 {{\[}}[0, 1]] : memref<1x8xf32> into memref<8xf32>
// CHECK:         %[[C:.*]] = memref.cast %[[H3]]
// CHECK:         %[[B:.*]] = memref.cast %[[BIAS]] : memref<8xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK:         call @pw_sgemm_batched_bias_clamp(%{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %[[B]], %{{.*}}, %{{.*}}) : (f32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, f32, f32) -> ()
// CHECK-NOT:     linalg.generic
// CHECK:         memref.copy %[[H]], %arg3
func.func @linear_relu(%x: memref<1x4x16xf32>, %w: memref<1x16x8xf32>,
                       %bias: memref<1x8xf32>,
                       %res: memref<4x8xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %max = arith.constant 3.40282347E+38 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<1x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x4x8xf32>)
  linalg.batch_matmul ins(%x, %w : memref<1x4x16xf32>, memref<1x16x8xf32>) outs(%c : memref<1x4x8xf32>)
  %v = memref.collapse_shape %c [[0, 1], [2]] : memref<1x4x8xf32> into memref<4x8xf32>
  %h = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v, %bias : memref<4x8xf32>, memref<1x8xf32>) outs(%h : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    %1 = arith.minimumf %0, %max : f32
    %2 = arith.maximumf %1, %zero : f32
    linalg.yield %2 : f32
  }
  memref.copy %h, %res : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %c : memref<1x4x8xf32>
  memref.dealloc %h : memref<4x8xf32>
  return
}

// -----

// 2-D, a bias without clamps (the last layer), a rank-1 bias, the bias
// first in the add, the result a result argument: lo and hi are -inf and
// +inf.
// CHECK-LABEL: func.func @linear
// CHECK-NOT:     memref.alloc
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         call @pw_sgemm_bias_clamp(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NEGINF]], %[[INF]])
// CHECK-NOT:     linalg.generic
func.func @linear(%x: memref<4x16xf32>, %w: memref<16x8xf32>,
                  %bias: memref<8xf32>,
                  %res: memref<4x8xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%x, %w : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<4x8xf32>, memref<8xf32>) outs(%res : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %b, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %c : memref<4x8xf32>
  return
}

// -----

// The product is read again after the element-wise op (the backward keeps
// it): the product keeps its buffer and the op stays.
// CHECK-LABEL: func.func @product_kept
// CHECK:         call @pw_sgemm(
// CHECK:         linalg.generic
func.func @product_kept(%x: memref<4x16xf32>, %w: memref<16x8xf32>,
                        %bias: memref<8xf32>,
                        %res: memref<4x8xf32> {bufferize.result},
                        %kept: memref<4x8xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%x, %w : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<4x8xf32>, memref<8xf32>) outs(%res : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    linalg.yield %0 : f32
  }
  memref.copy %c, %kept : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %c : memref<4x8xf32>
  return
}

// -----

// Not a bias and clamp: a multiply, a clamp on the other side (maxnumf,
// which does not propagate NaN), a product accumulated into (no zero fill),
// a write to an operand in between. Each keeps its element-wise op.
// CHECK-LABEL: func.func @not_epilogues
// CHECK-NOT:     pw_sgemm_bias_clamp
// CHECK:         call @pw_sgemm(
// CHECK:         linalg.generic
// CHECK:         arith.mulf
// CHECK:         call @pw_sgemm(
// CHECK:         linalg.generic
// CHECK:         arith.maxnumf
// CHECK:         call @pw_sgemm(
// CHECK:         linalg.generic
// CHECK:         call @pw_sgemm(
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK-NOT:     pw_sgemm_bias_clamp
func.func @not_epilogues(%x: memref<4x16xf32>, %w: memref<16x8xf32>,
                         %bias: memref<8xf32>, %acc: memref<4x8xf32>,
                         %r0: memref<4x8xf32> {bufferize.result},
                         %r1: memref<4x8xf32> {bufferize.result},
                         %r2: memref<4x8xf32> {bufferize.result},
                         %r3: memref<4x8xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %c0 = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c0 : memref<4x8xf32>)
  linalg.matmul ins(%x, %w : memref<4x16xf32>, memref<16x8xf32>) outs(%c0 : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c0, %bias : memref<4x8xf32>, memref<8xf32>) outs(%r0 : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.mulf %in, %b : f32
    linalg.yield %0 : f32
  }
  %c1 = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c1 : memref<4x8xf32>)
  linalg.matmul ins(%x, %w : memref<4x16xf32>, memref<16x8xf32>) outs(%c1 : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c1, %bias : memref<4x8xf32>, memref<8xf32>) outs(%r1 : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    %1 = arith.maxnumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  %c2 = memref.alloc() : memref<4x8xf32>
  memref.copy %acc, %c2 : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%x, %w : memref<4x16xf32>, memref<16x8xf32>) outs(%c2 : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c2, %bias : memref<4x8xf32>, memref<8xf32>) outs(%r2 : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    linalg.yield %0 : f32
  }
  %c3 = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c3 : memref<4x8xf32>)
  linalg.matmul ins(%x, %w : memref<4x16xf32>, memref<16x8xf32>) outs(%c3 : memref<4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%bias : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c3, %bias : memref<4x8xf32>, memref<8xf32>) outs(%r3 : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    linalg.yield %0 : f32
  }
  return
}
