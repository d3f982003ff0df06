// UNSUPPORTED: cuda-toolkit
// RUN: not pipewave-opt %s --pipe-lower-to-gpu=format=fatbin 2>&1 | FileCheck %s
// RUN: pipewave-opt %s --pipe-lower-to-gpu=format=isa | FileCheck %s --check-prefix=ISA

// On a build that found no CUDA toolkit, cubin/fatbin output without
// toolkit= is a clear error; PTX (format=isa) still works.

// CHECK: pipe-lower-to-gpu: format=fatbin needs the CUDA toolkit (ptxas, fatbinary, libdevice) and this build found none: pass toolkit=<CUDA root> or use format=isa
// ISA: llvm.func @pw_stage0_forward(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipe.stage = 0 : i64} {
  %e = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
}
