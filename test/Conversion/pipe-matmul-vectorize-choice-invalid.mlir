// RUN: pipewave-opt %s --verify-diagnostics --pass-pipeline='builtin.module(func.func(pipe-matmul-vectorize{choice=nn-square:fast}))'
// RUN: not pipewave-opt %s --pass-pipeline='builtin.module(func.func(pipe-matmul-vectorize{choice=nn-huge:blas}))' 2>&1 | FileCheck %s --check-prefix=BADCLASS
// RUN: not pipewave-compile %s --stages 1 --emit=mlir -o /dev/null --matmul-choice=nn-square 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not pipewave-compile %s --stages 1 --emit=mlir -o /dev/null --matmul=blas --matmul-choice=nn-square:blas 2>&1 | FileCheck %s --check-prefix=NOTAUTO

// A malformed rule of the matmul choice is an error: pipe-matmul-vectorize
// reports it on every function before rewriting anything, pipewave-compile
// before compiling.

// BADCLASS: error: pipe-matmul-vectorize: matmul choice rule 'nn-huge:blas': unknown class (layouts nn, tn, nt, tt or *; shapes small, skinny-m, skinny-n, skinny-k, square or *)
// COMPILE: pipewave-compile: error: --matmul-choice: matmul choice rule 'nn-square': expected CLASS:KERNEL
// NOTAUTO: pipewave-compile: error: --matmul-choice applies to --matmul=auto only

// expected-error@+1 {{pipe-matmul-vectorize: matmul choice rule 'nn-square:fast': the kernel must be vector or blas}}
func.func @main(%x: tensor<4xf32> {pipe.name = "x"}) -> tensor<4xf32> {
  %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
