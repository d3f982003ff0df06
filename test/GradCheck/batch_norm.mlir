// Gradient check of a BatchNorm in training mode as the ONNX importer and
// pipe-microbatch build it (pipe.batch_mean expanded over the microbatch:
// tosa.reduce_sum over N, H, W times 1/count): y = (x - mean(x)) *
// rsqrt(var(x) + eps) * g + b with the biased batch variance. The backward
// goes through the mean and the variance: the input gradient of every
// element depends on every other element of its channel.
//
// Central differences in f64 with the default step (1e-6) and tolerance
// (1e-6) of test-pipe-gradcheck; inputs in [-1, 1).
// RUN: pipewave-opt %s --pipe-autodiff --test-pipe-gradcheck='lo=-1.0 hi=1.0' | %gradcheck_run | FileCheck %s

// CHECK: f arg 0 (24 of 24 elements) max error:
// CHECK: f arg 1 (3 of 3 elements) max error:
// CHECK: f arg 2 (3 of 3 elements) max error:
// CHECK: PASS

func.func private @f(%x: tensor<2x3x2x2xf64>, %g: tensor<1x3x1x1xf64> {pipe.param, pipe.name = "g"}, %b: tensor<1x3x1x1xf64> {pipe.param, pipe.name = "b"}) -> tensor<2x3x2x2xf64>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1x1xf64>}> : () -> tensor<1x1x1x1xf64>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1x1x1xf64>}> : () -> tensor<1x1x1x1xf64>
  %s0 = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<2x3x2x2xf64>) -> tensor<1x3x2x2xf64>
  %s2 = tosa.reduce_sum %s0 {axis = 2 : i32} : (tensor<1x3x2x2xf64>) -> tensor<1x3x1x2xf64>
  %s3 = tosa.reduce_sum %s2 {axis = 3 : i32} : (tensor<1x3x1x2xf64>) -> tensor<1x3x1x1xf64>
  %mean = tosa.mul %s3, %inv, %shift : (tensor<1x3x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1xi8>) -> tensor<1x3x1x1xf64>
  %d = tosa.sub %x, %mean : (tensor<2x3x2x2xf64>, tensor<1x3x1x1xf64>) -> tensor<2x3x2x2xf64>
  %sq = tosa.mul %d, %d, %shift : (tensor<2x3x2x2xf64>, tensor<2x3x2x2xf64>, tensor<1xi8>) -> tensor<2x3x2x2xf64>
  %q0 = tosa.reduce_sum %sq {axis = 0 : i32} : (tensor<2x3x2x2xf64>) -> tensor<1x3x2x2xf64>
  %q2 = tosa.reduce_sum %q0 {axis = 2 : i32} : (tensor<1x3x2x2xf64>) -> tensor<1x3x1x2xf64>
  %q3 = tosa.reduce_sum %q2 {axis = 3 : i32} : (tensor<1x3x1x2xf64>) -> tensor<1x3x1x1xf64>
  %var = tosa.mul %q3, %inv, %shift : (tensor<1x3x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1xi8>) -> tensor<1x3x1x1xf64>
  %ve = tosa.add %var, %eps : (tensor<1x3x1x1xf64>, tensor<1x1x1x1xf64>) -> tensor<1x3x1x1xf64>
  %r = tosa.rsqrt %ve : (tensor<1x3x1x1xf64>) -> tensor<1x3x1x1xf64>
  %n = tosa.mul %d, %r, %shift : (tensor<2x3x2x2xf64>, tensor<1x3x1x1xf64>, tensor<1xi8>) -> tensor<2x3x2x2xf64>
  %y = tosa.mul %n, %g, %shift : (tensor<2x3x2x2xf64>, tensor<1x3x1x1xf64>, tensor<1xi8>) -> tensor<2x3x2x2xf64>
  %z = tosa.add %y, %b : (tensor<2x3x2x2xf64>, tensor<1x3x1x1xf64>) -> tensor<2x3x2x2xf64>
  return %z : tensor<2x3x2x2xf64>
}
