// RUN: not pipewave-opt %s --pipe-lower-to-llvm=matmul=fast 2>&1 | FileCheck %s
// RUN: not pipewave-compile %s --stages 2 --matmul=fast --emit=mlir -o - 2>&1 | FileCheck %s --check-prefix=COMPILE

// The matmul option of pipe-lower-to-llvm takes auto, blas, vector or loops;
// the option parser rejects any other value before anything runs.

// CHECK: for the --matmul option: Cannot find option named 'fast'!
// CHECK-NOT: LLVM ERROR
// COMPILE: pipewave-compile: error: --matmul=fast: expected auto, blas, vector or loops

func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
