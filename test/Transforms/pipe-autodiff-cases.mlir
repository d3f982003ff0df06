// RUN: pipewave-opt %s -split-input-file --pipe-autodiff | FileCheck %s

// pipe.recompute: the region's values are not stashed. The forward runs the
// body inline and stashes only the sigmoid output (its rule reads it); the
// backward recomputes tanh and exp from the region's input x.

// CHECK-LABEL: func.func private @s(
// CHECK: pipe.recompute
// CHECK-LABEL: func.func private @s_fwd(
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NOT: pipe.recompute
// CHECK: tosa.tanh
// CHECK: tosa.exp
// CHECK: %[[S:.*]] = tosa.sigmoid
// CHECK-NEXT: return %[[S]], %[[S]]
// CHECK-LABEL: func.func private @s_bwd(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[W:[^:]*]]: tensor<1x3xf32> {pipe.name = "w", pipe.param}, %[[SS:[^:]*]]: tensor<2x3xf32>, %[[DS:[^:]*]]: tensor<2x3xf32>)
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<1x3xf32>)
// CHECK: %[[T:.*]] = tosa.tanh %[[X]]
// CHECK: %[[E:.*]] = tosa.exp %[[T]]
// CHECK: tosa.mul %{{.*}}, %[[E]]
// CHECK: return

func.func private @s(%x: tensor<2x3xf32>, %w: tensor<1x3xf32> {pipe.param, pipe.name = "w"}) -> tensor<2x3xf32>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = pipe.recompute -> tensor<2x3xf32> {
    %t = tosa.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %e = tosa.exp %t : (tensor<2x3xf32>) -> tensor<2x3xf32>
    pipe.yield %e : tensor<2x3xf32>
  }
  %m = tosa.mul %r, %w, %shift : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  %s = tosa.sigmoid %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// The same without pipe.recompute: tanh's and exp's results are stashed too
// (in program order, after the results), and the backward does not recompute
// them.

// CHECK-LABEL: func.func private @s_fwd(
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK: %[[T:.*]] = tosa.tanh
// CHECK: %[[E:.*]] = tosa.exp %[[T]]
// CHECK: %[[S:.*]] = tosa.sigmoid
// CHECK-NEXT: return %[[S]], %[[T]], %[[E]], %[[S]]
// CHECK-LABEL: func.func private @s_bwd(
// CHECK-SAME: %{{[^:]*}}: tensor<2x3xf32>, %{{[^:]*}}: tensor<1x3xf32> {pipe.name = "w", pipe.param},
// CHECK-SAME: %{{[^:]*}}: tensor<2x3xf32>, %{{[^:]*}}: tensor<2x3xf32>, %{{[^:]*}}: tensor<2x3xf32>, %{{[^:]*}}: tensor<2x3xf32>)
// CHECK-NOT: tosa.tanh
// CHECK-NOT: tosa.exp
// CHECK: return

func.func private @s(%x: tensor<2x3xf32>, %w: tensor<1x3xf32> {pipe.param, pipe.name = "w"}) -> tensor<2x3xf32>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %t = tosa.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = tosa.exp %t : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = tosa.mul %e, %w, %shift : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  %s = tosa.sigmoid %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// Which arguments and results take part:
//  * %a (activation), %p and %u (parameters) get gradients; %i (integer) and
//    %d (data input) do not: pipe.grad_args = [0, 2, 3].
//  * %u is unused: its gradient is zero.
//  * the integer result gets no cotangent: the backward takes two, for the
//    float results 0 and 2.
//  * %a is also returned as is (forwarded to the next stage): its gradient
//    adds the cotangent of result 2.
//  * tosa.floor has no gradient rule, but it only reads the data input, so it
//    is not differentiated and is no error.

// CHECK-LABEL: func.func private @s(
// CHECK-SAME: pipe.grad_args = array<i64: 0, 2, 3>, pipe.stage = 1 : i64
// CHECK-LABEL: func.func private @s_fwd(
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>)
// CHECK-LABEL: func.func private @s_bwd(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4xf32>, %{{[^:]*}}: tensor<4xi32>, %[[P:[^:]*]]: tensor<4xf32> {pipe.name = "p", pipe.param}, %{{[^:]*}}: tensor<4xf32> {pipe.name = "u", pipe.param}, %{{[^:]*}}: tensor<4xf32> {pipe.name = "d"},
// CHECK-SAME: %[[DSUM:[^:]*]]: tensor<4xf32>, %[[DFWD:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-DAG: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<4xf32>}>
// CHECK-DAG: %[[GA:.*]] = tosa.mul %[[DSUM]], %[[P]]
// CHECK-DAG: %[[GP:.*]] = tosa.mul %[[DSUM]], %[[A]]
// CHECK: %[[DA:.*]] = tosa.add %[[DFWD]], %[[GA]]
// CHECK: return %[[DA]], %[[GP]], %[[ZERO]]

func.func private @s(%a: tensor<4xf32>, %i: tensor<4xi32>,
                     %p: tensor<4xf32> {pipe.param, pipe.name = "p"},
                     %u: tensor<4xf32> {pipe.param, pipe.name = "u"},
                     %d: tensor<4xf32> {pipe.name = "d"})
    -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) attributes {pipe.stage = 1 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %a, %p, %shift : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
  %f = tosa.floor %d : (tensor<4xf32>) -> tensor<4xf32>
  %sum = tosa.add %m, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %sum, %i, %a : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// A function without pipe.stage is left alone.

// CHECK-LABEL: func.func @helper(
// CHECK-NOT: pipe.fwd
// CHECK-NOT: func.func
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
