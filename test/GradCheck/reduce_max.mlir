// Gradient check of tosa.reduce_max, and of its tie rule: the gradient goes to
// the positions that attain the extremum, split evenly between them on ties.
//
// @f: reduce_max over an axis, and over x tiled twice along the axis (every
// extremum is attained twice; the halves add up in x). @g: reduce_max over
// concat(2x, x*x + x), a tie at x = 1 between branches of slopes 2 and 3: the
// second run sets every input to 1 and checks @g alone, so the gradient must
// be 2.5 (picking one position would give 2 or 3, not dividing by the count
// 5). Only two-way ties are checked: at a k-way tie central differences give
// 1/2 per position, not the 1/k of the rule.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck.
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck | %gradcheck_run | FileCheck %s
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='lo=1.0 hi=1.0 only=g' | %gradcheck_run | FileCheck %s --check-prefix=TIE

// CHECK: f arg 0 (24 of 24 elements) max error:
// CHECK: g arg 0 (4 of 4 elements) max error:
// CHECK: PASS
// TIE-NOT: f arg
// TIE: g arg 0 (4 of 4 elements) max error:
// TIE: PASS

func.func private @f(%x: tensor<2x3x4xf64>) -> (tensor<2x3x1xf64>, tensor<2x3x1xf64>)
    attributes {pipe.stage = 0 : i64} {
  %m = tosa.const_shape {values = dense<[1, 1, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %0 = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x3x4xf64>) -> tensor<2x3x1xf64>
  %t = tosa.tile %x, %m : (tensor<2x3x4xf64>, !tosa.shape<3>) -> tensor<2x3x8xf64>
  %1 = tosa.reduce_max %t {axis = 2 : i32} : (tensor<2x3x8xf64>) -> tensor<2x3x1xf64>
  return %0, %1 : tensor<2x3x1xf64>, tensor<2x3x1xf64>
}

func.func private @g(%x: tensor<4x1xf64>) -> tensor<4x1xf64>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %u = tosa.add %x, %x : (tensor<4x1xf64>, tensor<4x1xf64>) -> tensor<4x1xf64>
  %sq = tosa.mul %x, %x, %shift : (tensor<4x1xf64>, tensor<4x1xf64>, tensor<1xi8>) -> tensor<4x1xf64>
  %v = tosa.add %sq, %x : (tensor<4x1xf64>, tensor<4x1xf64>) -> tensor<4x1xf64>
  %c = tosa.concat %u, %v {axis = 1 : i32} : (tensor<4x1xf64>, tensor<4x1xf64>) -> tensor<4x2xf64>
  %0 = tosa.reduce_max %c {axis = 1 : i32} : (tensor<4x2xf64>) -> tensor<4x1xf64>
  return %0 : tensor<4x1xf64>
}
