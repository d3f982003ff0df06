// RUN: not pipewave-opt %s --pipe-lower-to-gpu=precision=fp16 2>&1 | FileCheck %s --check-prefix=PREC
// RUN: not pipewave-opt %s --pipe-lower-to-gpu=format=ptx 2>&1 | FileCheck %s --check-prefix=FMT
// RUN: not pipewave-opt %s --pipe-lower-to-gpu=cuda-arch=gfx90a 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not pipewave-opt %s --pipe-matmul-to-cublas=precision=fp64 2>&1 | FileCheck %s --check-prefix=CUBLAS

// Invalid options of pipe-lower-to-gpu and pipe-matmul-to-cublas.

// PREC: pipe-lower-to-gpu: precision must be fp32, tf32 or bf16, got 'fp16'
// FMT: pipe-lower-to-gpu: format must be bin, fatbin or isa, got 'ptx'
// ARCH: pipe-lower-to-gpu: cuda-arch must be sm_<NN>, got 'gfx90a'
// CUBLAS: pipe-matmul-to-cublas: precision must be fp32, tf32 or bf16, got 'fp64'

func.func @f() {
  return
}
