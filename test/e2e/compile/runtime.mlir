// End-to-end with the real runtime (libpipewave_runtime) and MPI: an
// inference model compiled unpartitioned runs in one process; split into 2
// stages and 4 microbatches it runs on 2 ranks (pipewave-run) and must
// reproduce both outputs: one concatenated over microbatches, one summed.

// RUN: %python %pipewave_src/scripts/make-npy.py %t.x.npy 8 4
// RUN: pipewave-compile %s -o %t.s1 --stages 1
// RUN: rm -rf %t.out1 && mkdir -p %t.out1
// RUN: %t.s1 --data x=%t.x.npy --out %t.out1 | FileCheck %s --check-prefix=S1
// RUN: pipewave-compile %s -o %t.s2 --stages 2 --microbatches 4
// RUN: %t.s2 --print-ranks | FileCheck %s --check-prefix=RANKS
// RUN: pipewave-run -n 2 %t.s2 --data x=%t.x.npy --expect probs=%t.out1/probs.npy --expect colsum=%t.out1/colsum.npy | FileCheck %s --check-prefix=S2

// S1: output probs: shape [8, 6]
// S1: output colsum: shape [1, 6]
// RANKS: 2
// S2: expect probs: ok (48 values
// S2: expect colsum: ok (6 values

func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<1x4x6xf32> {pipe.name = "w", pipe.param})
    -> (tensor<8x6xf32> {pipe.name = "probs"}, tensor<1x6xf32> {pipe.name = "colsum"}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[1, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[8, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %a = tosa.reshape %x, %s3 : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<1x8x4xf32>
  %m = tosa.matmul %a, %w, %zp, %zp : (tensor<1x8x4xf32>, tensor<1x4x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x6xf32>
  %r = tosa.reshape %m, %s2 : (tensor<1x8x6xf32>, !tosa.shape<2>) -> tensor<8x6xf32>
  pipe.split
  %mx = tosa.reduce_max %r {axis = 1 : i32} : (tensor<8x6xf32>) -> tensor<8x1xf32>
  %sh = tosa.sub %r, %mx : (tensor<8x6xf32>, tensor<8x1xf32>) -> tensor<8x6xf32>
  %e = tosa.exp %sh : (tensor<8x6xf32>) -> tensor<8x6xf32>
  %se = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<8x6xf32>) -> tensor<8x1xf32>
  %inv = tosa.reciprocal %se : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %p = tosa.mul %e, %inv, %shift : (tensor<8x6xf32>, tensor<8x1xf32>, tensor<1xi8>) -> tensor<8x6xf32>
  %cs = tosa.reduce_sum %r {axis = 0 : i32} : (tensor<8x6xf32>) -> tensor<1x6xf32>
  return %p, %cs : tensor<8x6xf32>, tensor<1x6xf32>
}
