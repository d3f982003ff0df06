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
// a write to the product's operand before the element-wise op (where the
// call would compute it). Each keeps its element-wise op.
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
  linalg.fill ins(%zero : f32) outs(%x : memref<4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c3, %bias : memref<4x8xf32>, memref<8xf32>) outs(%r3 : memref<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// ReLU's backward on an input gradient (pipe-autodiff's mask, on the
// batched product itself): the product keeps only where the forward's
// output was positive, written straight into the mask op's result. The
// weight gradient computed in between writes an out-parameter, which is
// none of the product's operands.
// CHECK-LABEL: func.func @relu_backward
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         call @pw_sgemm_batched(
// CHECK:         %[[G:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x8xf32>
// CHECK:         %[[Y:.*]] = memref.collapse_shape %arg2 {{\[}}[0, 1], [2]] : memref<1x4x8xf32> into memref<4x8xf32>
// CHECK:         %[[C:.*]] = memref.cast %[[G]]
// CHECK:         %[[M:.*]] = memref.cast %[[Y]] : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         call @pw_sgemm_batched_positive_mask(%{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %[[M]]) : (f32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
// CHECK-NOT:     linalg.generic
func.func @relu_backward(%dy: memref<1x4x16xf32>, %wt: memref<1x16x8xf32>,
                         %y: memref<1x4x8xf32>, %xt: memref<1x16x4xf32>,
                         %res: memref<1x4x8xf32> {bufferize.result},
                         %dw: memref<1x16x16xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<1x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x4x8xf32>)
  linalg.batch_matmul ins(%dy, %wt : memref<1x4x16xf32>, memref<1x16x8xf32>) outs(%c : memref<1x4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%dw : memref<1x16x16xf32>)
  linalg.batch_matmul ins(%xt, %dy : memref<1x16x4xf32>, memref<1x4x16xf32>) outs(%dw : memref<1x16x16xf32>)
  %g = memref.alloc() {alignment = 64 : i64} : memref<1x4x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %c : memref<1x4x8xf32>, memref<1x4x8xf32>) outs(%g : memref<1x4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.cmpf ogt, %in, %zero : f32
    %1 = arith.select %0, %in_1, %zero : f32
    linalg.yield %1 : f32
  }
  memref.copy %g, %res : memref<1x4x8xf32> to memref<1x4x8xf32>
  memref.dealloc %c : memref<1x4x8xf32>
  return
}

// -----

// Not ReLU's backward: the mask on the other side of the select, -0 where
// the mask is not positive, a batch of 2 (the helpers' mask is a matrix).
// And a mask written in place (the result is the mask: the call would
// overwrite the mask with the product before reading it). Each keeps its
// element-wise op.
// CHECK-LABEL: func.func @not_masks
// CHECK-NOT:     positive_mask
// CHECK:         call @pw_sgemm_batched(
// CHECK:         linalg.generic
// CHECK:         call @pw_sgemm_batched(
// CHECK:         linalg.generic
// CHECK:         call @pw_sgemm_batched(
// CHECK:         linalg.generic
// CHECK:         call @pw_sgemm_batched(
// CHECK:         linalg.generic
// CHECK-NOT:     positive_mask
func.func @not_masks(%dy: memref<1x4x16xf32>, %wt: memref<1x16x8xf32>,
                     %y: memref<1x4x8xf32>, %dy2: memref<2x4x16xf32>,
                     %wt2: memref<2x16x8xf32>, %y2: memref<2x4x8xf32>,
                     %r0: memref<1x4x8xf32> {bufferize.result},
                     %r1: memref<1x4x8xf32> {bufferize.result},
                     %r2: memref<2x4x8xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %negzero = arith.constant -0.0 : f32
  %c0 = memref.alloc() : memref<1x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c0 : memref<1x4x8xf32>)
  linalg.batch_matmul ins(%dy, %wt : memref<1x4x16xf32>, memref<1x16x8xf32>) outs(%c0 : memref<1x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %c0 : memref<1x4x8xf32>, memref<1x4x8xf32>) outs(%r0 : memref<1x4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.cmpf ogt, %in, %zero : f32
    %1 = arith.select %0, %zero, %in_1 : f32
    linalg.yield %1 : f32
  }
  %c1 = memref.alloc() : memref<1x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c1 : memref<1x4x8xf32>)
  linalg.batch_matmul ins(%dy, %wt : memref<1x4x16xf32>, memref<1x16x8xf32>) outs(%c1 : memref<1x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %c1 : memref<1x4x8xf32>, memref<1x4x8xf32>) outs(%r1 : memref<1x4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.cmpf ogt, %in, %zero : f32
    %1 = arith.select %0, %in_1, %negzero : f32
    linalg.yield %1 : f32
  }
  %c2 = memref.alloc() : memref<2x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<2x4x8xf32>)
  linalg.batch_matmul ins(%dy2, %wt2 : memref<2x4x16xf32>, memref<2x16x8xf32>) outs(%c2 : memref<2x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y2, %c2 : memref<2x4x8xf32>, memref<2x4x8xf32>) outs(%r2 : memref<2x4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.cmpf ogt, %in, %zero : f32
    %1 = arith.select %0, %in_1, %zero : f32
    linalg.yield %1 : f32
  }
  %h = memref.alloc() : memref<1x4x8xf32>
  memref.copy %y, %h : memref<1x4x8xf32> to memref<1x4x8xf32>
  %c3 = memref.alloc() : memref<1x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c3 : memref<1x4x8xf32>)
  linalg.batch_matmul ins(%dy, %wt : memref<1x4x16xf32>, memref<1x16x8xf32>) outs(%c3 : memref<1x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h, %c3 : memref<1x4x8xf32>, memref<1x4x8xf32>) outs(%h : memref<1x4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.cmpf ogt, %in, %zero : f32
    %1 = arith.select %0, %in_1, %zero : f32
    linalg.yield %1 : f32
  }
  memref.copy %h, %r1 : memref<1x4x8xf32> to memref<1x4x8xf32>
  return
}
