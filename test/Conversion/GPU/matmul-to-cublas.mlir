// RUN: pipewave-opt %s --pipe-gpu-stream-args --pipe-matmul-to-cublas=precision=tf32 --canonicalize | FileCheck %s

// pipe-matmul-to-cublas on bufferized functions: the operand layouts
// (leading dimension, transposition, batch stride) come from the static
// strides and the indexing maps; cuBLAS gets them without copies.

// CHECK-LABEL: func.func @batched(
// CHECK-SAME:      %[[A:.*]]: memref<2x4x8xf32>, %[[B:.*]]: memref<2x8x16xf32>, %[[C:.*]]: memref<2x4x16xf32>, %[[S:.*]]: !llvm.ptr {pipewave.stream})
// CHECK-DAG:     %[[TF32:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[NT:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         call @pw_cuda_sgemm(%[[TF32]], %[[NT]], %[[NT]], %c4_i64, %c16_i64, %c8_i64, %{{.*}}, %c8_i64, %c32_i64, %{{.*}}, %c16_i64, %c128_i64, %[[ONE]], %{{.*}}, %c16_i64, %c64_i64, %c2_i64, %[[S]])
func.func @batched(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}

// Attention scores q k^T as reshape fusion leaves them: a 4-D generic with
// two batch loops (4 x 2, evenly spaced: one batch stride) and k stored
// transposed (transB = 1, ldb = 16).
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
// CHECK-LABEL: func.func @scores(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {pipewave.stream})
// CHECK-DAG:     %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[N:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     linalg.
// CHECK:         call @pw_cuda_sgemm(%[[T]], %[[N]], %[[T]], %c8_i64, %c8_i64, %c16_i64, %{{.*}}, %c16_i64, %c128_i64, %{{.*}}, %c16_i64, %c128_i64, %[[ZERO]], %{{.*}}, %c8_i64, %c64_i64, %c8_i64,
func.func @scores(%q: memref<4x2x8x16xf32>, %k: memref<4x2x8x16xf32>, %out: memref<4x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4x2x8x8xf32>)
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<4x2x8x16xf32>, memref<4x2x8x16xf32>) outs(%out : memref<4x2x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// Batches that are not evenly spaced (q stored [h, b, i, d]: the batch
// loops b, h have strides 128 and 512, which no single batch stride
// describes) stay for the kernels.
#qs = affine_map<(b, h, i, j, d) -> (h, b, i, d)>
// CHECK-LABEL: func.func @uneven(
// CHECK-NOT:     call @pw_cuda_sgemm
// CHECK:         linalg.generic
func.func @uneven(%q: memref<2x4x8x16xf32>, %k: memref<4x2x8x16xf32>, %out: memref<4x2x8x8xf32>) {
  linalg.generic {indexing_maps = [#qs, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x4x8x16xf32>, memref<4x2x8x16xf32>) outs(%out : memref<4x2x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// Not f32: left alone.
// CHECK-LABEL: func.func @f64(
// CHECK:         linalg.matmul
func.func @f64(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>) {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  return
}

// A transposed copy of the right operand in an allocation or in the stage's
// workspace (pipe-plan-workspace's views): the copy goes, cuBLAS reads the
// operand transposed (transB = 1, ldb = 8).
// CHECK-LABEL: func.func @transposed_copies(
// CHECK-DAG:     %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[N:.*]] = arith.constant 0 : i32
// CHECK-NOT:     linalg.
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.view
// CHECK:         call @pw_cuda_sgemm(%{{.*}}, %[[N]], %[[T]], %c4_i64, %c16_i64, %c8_i64, %{{.*}}, %c8_i64, %c0_i64, %{{.*}}, %c8_i64,
// CHECK:         call @pw_cuda_sgemm(%{{.*}}, %[[N]], %[[T]], %c4_i64, %c16_i64, %c8_i64, %{{.*}}, %c8_i64, %c0_i64, %{{.*}}, %c8_i64,
// CHECK-NOT:     linalg.
func.func @transposed_copies(%a: memref<4x8xf32>, %b: memref<16x8xf32>, %c: memref<4x16xf32>, %d: memref<4x16xf32>, %ws: memref<1024xi8>) {
  %bt = memref.alloc() : memref<8x16xf32>
  linalg.transpose ins(%b : memref<16x8xf32>) outs(%bt : memref<8x16xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %bt : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  memref.dealloc %bt : memref<8x16xf32>
  %c0 = arith.constant 0 : index
  %bv = memref.view %ws[%c0][] : memref<1024xi8> to memref<8x16xf32>
  linalg.transpose ins(%b : memref<16x8xf32>) outs(%bv : memref<8x16xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %bv : memref<4x8xf32>, memref<8x16xf32>) outs(%d : memref<4x16xf32>)
  return
}
