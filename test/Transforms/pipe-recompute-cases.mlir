// RUN: pipewave-opt %s -split-input-file --pipe-recompute=policy=selective -verify-diagnostics | FileCheck %s

// Corner cases of policy=selective; the stash remark is checked with
// -verify-diagnostics.

// A reduction over more than 16 elements (here 32 FLOPs per result element)
// is expensive and kept like a matmul; the multiply before it and the tanh
// after it are recomputed. Functions without pipe.stage are left alone.
//
// x is an activation (2x32 f32, 256 bytes), w a parameter. none: tanh's rule
// reads t (2x1, 8 bytes): 264; the multiply's rule reads x and w, which are
// arguments. full: 256. selective: t is recomputed from the kept sum r
// (2x1, 8 bytes): 264.

// CHECK-LABEL: func.func private @s(
// CHECK:         %[[P:.*]] = pipe.recompute -> tensor<2x32xf32> {
// CHECK-NEXT:      tosa.mul
// CHECK-NEXT:      pipe.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = tosa.reduce_sum %[[P]]
// CHECK-NEXT:    %[[T:.*]] = pipe.recompute -> tensor<2x1xf32> {
// CHECK-NEXT:      tosa.tanh %[[R]]
// CHECK-NEXT:      pipe.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[T]]
// CHECK-LABEL: func.func @helper(
// CHECK-NOT:     pipe.recompute
// CHECK:         return

// expected-remark@+1 {{pipe-recompute: stage 0 stashes 264 bytes per microbatch (none: 264, full: 256, selective: 264)}}
func.func private @s(%x: tensor<2x32xf32>, %w: tensor<1x32xf32> {pipe.param, pipe.name = "w"}) -> tensor<2x1xf32>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %x, %w, %shift : (tensor<2x32xf32>, tensor<1x32xf32>, tensor<1xi8>) -> tensor<2x32xf32>
  %r = tosa.reduce_sum %p {axis = 1 : i32} : (tensor<2x32xf32>) -> tensor<2x1xf32>
  %t = tosa.tanh %r : (tensor<2x1xf32>) -> tensor<2x1xf32>
  return %t : tensor<2x1xf32>
}

func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// A pipe.recompute already in the stage counts as one cheap operation: it
// joins the run around it and ends up nested. The policy=none figure includes
// it: exp's rule reads e (2x8, 64 bytes) while tanh is recomputed; with x
// (64 bytes): 128.

// CHECK-LABEL: func.func private @s(
// CHECK:         %[[O:.*]] = pipe.recompute -> tensor<2x8xf32> {
// CHECK-NEXT:      %[[I:.*]] = pipe.recompute -> tensor<2x8xf32> {
// CHECK-NEXT:        tosa.tanh
// CHECK-NEXT:        pipe.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[E:.*]] = tosa.exp %[[I]]
// CHECK-NEXT:      pipe.yield %[[E]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[O]]

// expected-remark@+1 {{pipe-recompute: stage 3 stashes 64 bytes per microbatch (none: 128, full: 64, selective: 64)}}
func.func private @s(%x: tensor<2x8xf32>) -> tensor<2x8xf32>
    attributes {pipe.stage = 3 : i64} {
  %r = pipe.recompute -> tensor<2x8xf32> {
    %t = tosa.tanh %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
    pipe.yield %t : tensor<2x8xf32>
  }
  %e = tosa.exp %r : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %e : tensor<2x8xf32>
}
