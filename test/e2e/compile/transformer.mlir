// End-to-end: examples/transformer.mlir split into stages and microbatches
// computes the same loss as the unpartitioned model (with the stub runtime
// of Inputs/stub_runtime.c). An inference variant of the model checks that a
// batch-carrying output is concatenated back in microbatch order.

// RUN: cc -c -O2 -I%pipewave_src/runtime/include %S/Inputs/stub_runtime.c -o %t.stub.o
// RUN: pipewave-compile %pipewave_src/examples/transformer.mlir -o %t.s1 --stages 1 --runtime-lib=%t.stub.o
// RUN: %t.s1 --print-all > %t.s1.txt
// RUN: pipewave-compile %pipewave_src/examples/transformer.mlir -o %t.s2 --stages 2 --microbatches 4 --runtime-lib=%t.stub.o
// RUN: %t.s2 --print-all > %t.s2.txt
// RUN: %python %S/Inputs/compare_outputs.py %t.s1.txt %t.s2.txt
// RUN: pipewave-compile %pipewave_src/examples/transformer.mlir -o %t.s3 --stages 3 --microbatches 2 --schedule gpipe --runtime-lib=%t.stub.o
// RUN: %t.s3 --print-all > %t.s3.txt
// RUN: %python %S/Inputs/compare_outputs.py %t.s1.txt %t.s3.txt

// RUN: pipewave-compile %s -o %t.inf1 --stages 1 --runtime-lib=%t.stub.o
// RUN: %t.inf1 --print-all > %t.inf1.txt
// RUN: pipewave-compile %s -o %t.inf2 --stages 2 --microbatches 4 --runtime-lib=%t.stub.o
// RUN: %t.inf2 --print-all > %t.inf2.txt
// RUN: FileCheck %s < %t.inf2.txt
// RUN: %python %S/Inputs/compare_outputs.py %t.inf1.txt %t.inf2.txt

// CHECK: model transformer.mlir schedule 1f1b stages 2 microbatches 4 ranks 2 forward-only
// CHECK: output 0 (concat) numel 48
// CHECK: output 1 (sum) numel 6

// A small inference model: rows of x through a linear layer and a softmax
// over the features, plus a column sum over the batch.
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<1x4x6xf32> {pipe.name = "w", pipe.param}) -> (tensor<8x6xf32>, tensor<1x6xf32>) {
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
