// RUN: pipewave-opt %s --pipe-recompute -o /dev/null 2>&1 | FileCheck %s --check-prefix=RNONE
// RUN: pipewave-opt %s --pipe-recompute=policy=full -o /dev/null 2>&1 | FileCheck %s --check-prefix=RFULL
// RUN: pipewave-opt %s --pipe-recompute=policy=selective -o /dev/null 2>&1 | FileCheck %s --check-prefix=RSEL
// RUN: pipewave-opt %s --pipe-recompute="policy=selective threshold=40" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RT40
// RUN: pipewave-opt %s --pipe-recompute="policy=full report=false" 2>&1 | FileCheck %s --check-prefix=QUIET --implicit-check-not=remark
// RUN: pipewave-opt %s --pipe-recompute 2>/dev/null | FileCheck %s --check-prefix=NONE
// RUN: pipewave-opt %s --pipe-recompute=policy=full 2>/dev/null | FileCheck %s --check-prefix=FULL
// RUN: pipewave-opt %s --pipe-recompute=policy=selective 2>/dev/null | FileCheck %s --check-prefix=SEL
// RUN: pipewave-opt %s --pipe-recompute --pipe-autodiff 2>/dev/null | FileCheck %s --check-prefix=ADNONE
// RUN: pipewave-opt %s --pipe-recompute=policy=full --pipe-autodiff 2>/dev/null | FileCheck %s --check-prefix=ADFULL
// RUN: pipewave-opt %s --pipe-recompute=policy=selective --pipe-autodiff 2>/dev/null | FileCheck %s --check-prefix=ADSEL

// A two-stage network, f32 (4 bytes per element):
//   stage 0: h = t * exp(t), t = tanh(x @ w0 + b0)   x: 4x16, w0: 16x16
//   stage 1: loss = sum((h @ w1 - y)^2)               w1: 16x2, y: 4x2
//
// Bytes kept per microbatch = the non-parameter arguments + the stash of
// @S_fwd (what the gradient rules read and nothing recomputes):
//
// stage 0: the input x is 4x16 = 256 bytes.
//   none:      tanh's rule reads t, exp's reads e = exp(t), the mul's reads
//              t and e: the stash is t and e, 2 x 256; 256 + 512 = 768.
//   full:      everything is recomputed from x, w0, b0: 256.
//   selective: the matmul (2 x 16 = 32 FLOPs per element > 16) is kept; the
//              reshape/add/tanh/exp/mul run after it is recomputed from its
//              result m0 (1x4x16, 256 bytes), which is stashed: 512.
// stage 1: y (4x2, 32 bytes) and the activation h (4x16, 256 bytes): 288.
//   none:      d * d reads d = m1 - y (4x2, 32 bytes): 320.
//   full:      288.
//   selective: the matmul is kept; d is recomputed from its result m1
//              (1x4x2, 32 bytes), stashed instead of d: 320.
// With threshold=40 the matmuls (32 FLOPs per element) are cheap too, so
// selective recomputes everything like full.

// RNONE: remark: pipe-recompute: stage 0 stashes 768 bytes per microbatch (none: 768, full: 256, selective: 512)
// RNONE: remark: pipe-recompute: stage 1 stashes 320 bytes per microbatch (none: 320, full: 288, selective: 320)
// NONE-NOT: pipe.recompute
// NONE: func.func private @main_stage0(
// NONE-NOT: pipe.recompute
// RFULL: remark: pipe-recompute: stage 0 stashes 256 bytes per microbatch (none: 768, full: 256, selective: 512)
// RFULL: remark: pipe-recompute: stage 1 stashes 288 bytes per microbatch (none: 320, full: 288, selective: 320)
// RT40: remark: pipe-recompute: stage 0 stashes 256 bytes per microbatch (none: 768, full: 256, selective: 256)
// RT40: remark: pipe-recompute: stage 1 stashes 288 bytes per microbatch (none: 320, full: 288, selective: 288)
// RSEL: remark: pipe-recompute: stage 0 stashes 512 bytes per microbatch (none: 768, full: 256, selective: 512)
// RSEL: remark: pipe-recompute: stage 1 stashes 320 bytes per microbatch (none: 320, full: 288, selective: 320)

// full: the constants move to the top, everything else into one region.
// FULL-LABEL: func.func private @main_stage0(
// FULL-COUNT-4: tosa.const
// FULL-NEXT:    %[[R:.*]] = pipe.recompute -> tensor<4x16xf32> {
// FULL-NEXT:      tosa.reshape
// FULL-NEXT:      tosa.matmul
// FULL-NEXT:      tosa.reshape
// FULL-NEXT:      tosa.add
// FULL-NEXT:      tosa.tanh
// FULL-NEXT:      tosa.exp
// FULL-NEXT:      %[[H:.*]] = tosa.mul
// FULL-NEXT:      pipe.yield %[[H]] : tensor<4x16xf32>
// FULL-NEXT:    }
// FULL-NEXT:    return %[[R]] : tensor<4x16xf32>
// FULL-LABEL: func.func private @main_stage1(
// FULL:         pipe.recompute -> tensor<f32> {
// FULL-NOT:     pipe.recompute
// FULL:         return

// QUIET: pipe.recompute
// QUIET: pipe.recompute

// selective: one region per run of cheap operations between the matmuls.
// SEL-LABEL: func.func private @main_stage0(
// SEL-COUNT-4: tosa.const
// SEL-NEXT:    %[[X3:.*]] = pipe.recompute -> tensor<1x4x16xf32> {
// SEL-NEXT:      %[[R:.*]] = tosa.reshape
// SEL-NEXT:      pipe.yield %[[R]] : tensor<1x4x16xf32>
// SEL-NEXT:    }
// SEL-NEXT:    %[[M0:.*]] = tosa.matmul %[[X3]]
// SEL-NEXT:    %[[H:.*]] = pipe.recompute -> tensor<4x16xf32> {
// SEL-NEXT:      tosa.reshape %[[M0]]
// SEL-NEXT:      tosa.add
// SEL-NEXT:      tosa.tanh
// SEL-NEXT:      tosa.exp
// SEL-NEXT:      tosa.mul
// SEL-NEXT:      pipe.yield
// SEL-NEXT:    }
// SEL-NEXT:    return %[[H]] : tensor<4x16xf32>
// SEL-LABEL: func.func private @main_stage1(
// SEL:         pipe.recompute -> tensor<1x4x16xf32> {
// SEL:         %[[M1:.*]] = tosa.matmul
// SEL-NEXT:    %[[L:.*]] = pipe.recompute -> tensor<f32> {
// SEL-NEXT:      tosa.reshape %[[M1]]
// SEL-NEXT:      tosa.sub
// SEL-NEXT:      tosa.mul
// SEL-NEXT:      tosa.reduce_sum
// SEL-NEXT:      tosa.reduce_sum
// SEL-NEXT:      tosa.reshape
// SEL-NEXT:      pipe.yield
// SEL-NEXT:    }
// SEL-NEXT:    return %[[L]] : tensor<f32>

// What pipe-autodiff then stashes (the results of @S_fwd after the stage's
// own result): t and e; d.
// ADNONE-LABEL: func.func private @main_stage0_fwd(
// ADNONE-SAME:    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>)
// ADNONE:         %[[T:.*]] = tosa.tanh
// ADNONE:         %[[E:.*]] = tosa.exp %[[T]]
// ADNONE:         return %{{.*}}, %[[T]], %[[E]] :
// ADNONE-LABEL: func.func private @main_stage1_fwd(
// ADNONE-SAME:    -> (tensor<f32>, tensor<4x2xf32>)
// ADNONE:         %[[D:.*]] = tosa.sub
// ADNONE:         return %{{.*}}, %[[D]] :

// Nothing; the backward recomputes the forward from the arguments.
// ADFULL-LABEL: func.func private @main_stage0_fwd(
// ADFULL-SAME:    -> tensor<4x16xf32>
// ADFULL-NOT:     pipe.recompute
// ADFULL-LABEL: func.func private @main_stage0_bwd(
// ADFULL-SAME:    %{{[^:]*}}: tensor<1x16xf32> {pipe.name = "b0", pipe.param}, %{{[^:]*}}: tensor<4x16xf32>) -> (tensor<1x16x16xf32>, tensor<1x16xf32>)
// ADFULL:         tosa.matmul
// ADFULL:         tosa.tanh
// ADFULL:         tosa.exp
// ADFULL-LABEL: func.func private @main_stage1_fwd(
// ADFULL-SAME:    -> tensor<f32>

// The matmul results.
// ADSEL-LABEL: func.func private @main_stage0_fwd(
// ADSEL-SAME:    -> (tensor<4x16xf32>, tensor<1x4x16xf32>)
// ADSEL:         %[[M0:.*]] = tosa.matmul
// ADSEL:         return %{{.*}}, %[[M0]] :
// ADSEL-LABEL: func.func private @main_stage1_fwd(
// ADSEL-SAME:    -> (tensor<f32>, tensor<1x4x2xf32>)
// ADSEL:         %[[M1:.*]] = tosa.matmul
// ADSEL:         return %{{.*}}, %[[M1]] :

func.func private @main_stage0(%x: tensor<4x16xf32> {pipe.name = "x"},
    %w0: tensor<1x16x16xf32> {pipe.param, pipe.name = "w0"},
    %b0: tensor<1x16xf32> {pipe.param, pipe.name = "b0"}) -> tensor<4x16xf32>
    attributes {pipe.stage = 0 : i64} {
  %s3 = tosa.const_shape {values = dense<[1, 4, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x16xf32>, !tosa.shape<3>) -> tensor<1x4x16xf32>
  %m0 = tosa.matmul %x3, %w0, %zp, %zp : (tensor<1x4x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %s2 = tosa.const_shape {values = dense<[4, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %m0r = tosa.reshape %m0, %s2 : (tensor<1x4x16xf32>, !tosa.shape<2>) -> tensor<4x16xf32>
  %a0 = tosa.add %m0r, %b0 : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %t = tosa.tanh %a0 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = tosa.exp %t : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %h = tosa.mul %t, %e, %shift : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<1xi8>) -> tensor<4x16xf32>
  return %h : tensor<4x16xf32>
}

func.func private @main_stage1(%w1: tensor<1x16x2xf32> {pipe.param, pipe.name = "w1"},
    %y: tensor<4x2xf32> {pipe.name = "y"}, %h: tensor<4x16xf32>) -> tensor<f32>
    attributes {pipe.stage = 1 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[1, 4, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s0 = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %h3 = tosa.reshape %h, %s3 : (tensor<4x16xf32>, !tosa.shape<3>) -> tensor<1x4x16xf32>
  %m1 = tosa.matmul %h3, %w1, %zp, %zp : (tensor<1x4x16xf32>, tensor<1x16x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x2xf32>
  %m1r = tosa.reshape %m1, %s2 : (tensor<1x4x2xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
  %d = tosa.sub %m1r, %y : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xi8>) -> tensor<4x2xf32>
  %r0 = tosa.reduce_sum %sq {axis = 0 : i32} : (tensor<4x2xf32>) -> tensor<1x2xf32>
  %r1 = tosa.reduce_sum %r0 {axis = 1 : i32} : (tensor<1x2xf32>) -> tensor<1x1xf32>
  %loss = tosa.reshape %r1, %s0 : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %loss : tensor<f32>
}
