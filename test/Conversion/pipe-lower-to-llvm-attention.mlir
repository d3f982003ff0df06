// RUN: pipewave-opt %s --pipe-lower-to-llvm=matmul=blas | FileCheck %s --check-prefix=BLAS
// RUN: pipewave-opt %s --pipe-lower-to-llvm=matmul=vector --mlir-print-ir-after=pipe-matmul-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: pipewave-opt %s --pipe-lower-to-llvm=matmul=auto --mlir-print-ir-after=pipe-matmul-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=VECTOR

// Multi-head attention as the models write it: the heads split off by a
// transpose and a reshape [2, 4, 16, 32] -> [8, 16, 32] before each
// tosa.matmul, merged back by a reshape and a transpose after. Both batch
// matmuls (scores q k^T and context p v) reach the matmul lowerings as
// linalg.batch_matmul: two BLAS calls with matmul=blas, two tiled and
// vectorized contractions with matmul=vector and matmul=auto, and no
// contraction left to scalar loops. (Before pipe-fuse-elementwise, the
// element-wise fusion folded the reshapes into the matmuls, which became
// 4-D linalg.generic contractions and ran as scalar loops.)

// BLAS-LABEL:  llvm.func internal @attention(
// BLAS-COUNT-2:  llvm.call @pw_sgemm_batched(
// BLAS-NOT:      llvm.call @pw_sgemm_batched(
// BLAS:        llvm.func @pw_stage0_forward(

// VECTOR-LABEL: IR Dump After PipeMatmulVectorize
// VECTOR:       func.func private @attention(
// VECTOR-NOT:     linalg.generic {{.*}}"reduction"
// VECTOR:         vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x1x16xf32> into vector<1x8x16xf32>
// VECTOR-NOT:     linalg.generic {{.*}}"reduction"
// VECTOR:         math.exp
// VECTOR-NOT:     linalg.generic {{.*}}"reduction"
// VECTOR:         vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
// VECTOR-NOT:     linalg.generic {{.*}}"reduction"
// VECTOR:         return

func.func @attention(%q4: tensor<2x16x4x32xf32>, %k4: tensor<2x16x4x32xf32>,
                     %v4: tensor<2x16x4x32xf32>) -> tensor<2x16x4x32xf32>
    attributes {pipe.stage = 0 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s_heads = tosa.const_shape {values = dense<[8, 16, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_heads_t = tosa.const_shape {values = dense<[8, 32, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_merge = tosa.const_shape {values = dense<[2, 4, 16, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %qt = tosa.transpose %q4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x16x4x32xf32>) -> tensor<2x4x16x32xf32>
  %qh = tosa.reshape %qt, %s_heads : (tensor<2x4x16x32xf32>, !tosa.shape<3>) -> tensor<8x16x32xf32>
  %kt = tosa.transpose %k4 {perms = array<i32: 0, 2, 3, 1>} : (tensor<2x16x4x32xf32>) -> tensor<2x4x32x16xf32>
  %kh = tosa.reshape %kt, %s_heads_t : (tensor<2x4x32x16xf32>, !tosa.shape<3>) -> tensor<8x32x16xf32>
  %vt = tosa.transpose %v4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x16x4x32xf32>) -> tensor<2x4x16x32xf32>
  %vh = tosa.reshape %vt, %s_heads : (tensor<2x4x16x32xf32>, !tosa.shape<3>) -> tensor<8x16x32xf32>
  %scores = tosa.matmul %qh, %kh, %zp, %zp : (tensor<8x16x32xf32>, tensor<8x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x16xf32>
  %p = tosa.exp %scores : (tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %ctx = tosa.matmul %p, %vh, %zp, %zp : (tensor<8x16x16xf32>, tensor<8x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x32xf32>
  %ctx4 = tosa.reshape %ctx, %s_merge : (tensor<8x16x32xf32>, !tosa.shape<4>) -> tensor<2x4x16x32xf32>
  %out = tosa.transpose %ctx4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x4x16x32xf32>) -> tensor<2x16x4x32xf32>
  return %out : tensor<2x16x4x32xf32>
}
