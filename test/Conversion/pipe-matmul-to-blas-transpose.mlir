// RUN: pipewave-opt %s --pipe-matmul-to-blas --split-input-file | FileCheck %s

// A transposed copy feeding a matmul becomes a strided view: no copy, no
// temporary.
// CHECK-LABEL: func.func @weight_t
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[T:.*]] = memref.transpose %arg1 (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
// CHECK:         %[[C:.*]] = memref.cast %[[T]]
// CHECK:         call @pw_sgemm_batched(%{{.*}}, %{{.*}}, %[[C]], %{{.*}})
// CHECK-NOT:     memref.dealloc
func.func @weight_t(%x: memref<1x2x4xf32>, %w: memref<1x8x4xf32>,
                    %out: memref<1x2x8xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() {alignment = 64 : i64} : memref<1x4x8xf32>
  linalg.transpose ins(%w : memref<1x8x4xf32>) outs(%t : memref<1x4x8xf32>) permutation = [0, 2, 1]
  linalg.fill ins(%zero : f32) outs(%out : memref<1x2x8xf32>)
  linalg.batch_matmul ins(%x, %t : memref<1x2x4xf32>, memref<1x4x8xf32>) outs(%out : memref<1x2x8xf32>)
  memref.dealloc %t : memref<1x4x8xf32>
  return
}

// -----

// 2-D: the left operand.
// CHECK-LABEL: func.func @act_t
// CHECK:         memref.transpose %arg0 (d0, d1) -> (d1, d0)
// CHECK-NOT:     linalg.transpose
// CHECK:         call @pw_sgemm(
func.func @act_t(%x: memref<4x2xf32>, %w: memref<4x8xf32>,
                 %out: memref<2x8xf32> {bufferize.result}) {
  %t = memref.alloc() : memref<2x4xf32>
  linalg.transpose ins(%x : memref<4x2xf32>) outs(%t : memref<2x4xf32>) permutation = [1, 0]
  linalg.matmul ins(%t, %w : memref<2x4xf32>, memref<4x8xf32>) outs(%out : memref<2x8xf32>)
  memref.dealloc %t : memref<2x4xf32>
  return
}

// -----

// The source is written between the copy and the matmul: the copy stays.
// CHECK-LABEL: func.func @source_written
// CHECK:         linalg.transpose
// CHECK:         linalg.fill
// CHECK-NOT:     memref.transpose
// CHECK:         call @pw_sgemm(
func.func @source_written(%x: memref<2x4xf32>, %w: memref<8x4xf32>,
                          %out: memref<2x8xf32> {bufferize.result}) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<4x8xf32>
  linalg.transpose ins(%w : memref<8x4xf32>) outs(%t : memref<4x8xf32>) permutation = [1, 0]
  linalg.fill ins(%one : f32) outs(%w : memref<8x4xf32>)
  linalg.matmul ins(%x, %t : memref<2x4xf32>, memref<4x8xf32>) outs(%out : memref<2x8xf32>)
  memref.dealloc %t : memref<4x8xf32>
  return
}

// -----

// The copy has another reader: it stays.
// CHECK-LABEL: func.func @copy_read_twice
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
func.func @copy_read_twice(%x: memref<2x4xf32>, %w: memref<8x4xf32>,
                           %out: memref<2x8xf32> {bufferize.result},
                           %out2: memref<4x8xf32> {bufferize.result}) {
  %t = memref.alloc() : memref<4x8xf32>
  linalg.transpose ins(%w : memref<8x4xf32>) outs(%t : memref<4x8xf32>) permutation = [1, 0]
  linalg.matmul ins(%x, %t : memref<2x4xf32>, memref<4x8xf32>) outs(%out : memref<2x8xf32>)
  memref.copy %t, %out2 : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %t : memref<4x8xf32>
  return
}

// -----

// A permutation other than a swap of the last two dimensions stays a copy.
// CHECK-LABEL: func.func @batch_perm
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
func.func @batch_perm(%x: memref<2x2x4xf32>, %w: memref<4x2x8xf32>,
                      %out: memref<2x2x8xf32> {bufferize.result}) {
  %t = memref.alloc() : memref<2x4x8xf32>
  linalg.transpose ins(%w : memref<4x2x8xf32>) outs(%t : memref<2x4x8xf32>) permutation = [1, 0, 2]
  linalg.batch_matmul ins(%x, %t : memref<2x2x4xf32>, memref<2x4x8xf32>) outs(%out : memref<2x2x8xf32>)
  memref.dealloc %t : memref<2x4x8xf32>
  return
}
