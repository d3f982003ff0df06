// REQUIRES: cuda-toolkit
// Both examples, trained (pipe-train + pipe-autodiff), compiled to a cubin
// (MLP) and a fatbin (transformer), translated to LLVM IR, compiled to
// objects and linked against the launch layer (libpipewave_cuda) into
// shared objects with no undefined symbols. Needs the CUDA toolkit, not a
// GPU.

// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=8})' | pipewave-opt --pipe-autodiff --pipe-lower-to-gpu='format=bin toolkit=%cuda_toolkit' -o %t.mlp.mlir
// RUN: FileCheck %s --check-prefix=MLP --input-file=%t.mlp.mlir
// RUN: %llvm_tools_dir/mlir-translate --mlir-to-llvmir %t.mlp.mlir -o %t.mlp.ll
// RUN: %llvm_tools_dir/llc -O2 -filetype=obj -relocation-model=pic %t.mlp.ll -o %t.mlp.o
// RUN: cc -shared %t.mlp.o -L%pipewave_obj/lib -lpipewave_cuda -Wl,--no-undefined -o %t.mlp.so
// RUN: %llvm_tools_dir/llvm-nm -D --defined-only %t.mlp.so | FileCheck %s --check-prefix=SYMS
// RUN: %llvm_tools_dir/llvm-nm -D --undefined-only %t.mlp.so | FileCheck %s --check-prefix=UNDEF

// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=4})' | pipewave-opt --pipe-autodiff --pipe-lower-to-gpu='format=fatbin toolkit=%cuda_toolkit precision=tf32' -o %t.tr.mlir
// RUN: FileCheck %s --check-prefix=TR --input-file=%t.tr.mlir
// RUN: %llvm_tools_dir/mlir-translate --mlir-to-llvmir %t.tr.mlir -o %t.tr.ll
// RUN: %llvm_tools_dir/llc -O2 -filetype=obj -relocation-model=pic %t.tr.ll -o %t.tr.o
// RUN: cc -shared %t.tr.o -L%pipewave_obj/lib -lpipewave_cuda -Wl,--no-undefined -o %t.tr.so
// RUN: %llvm_tools_dir/llvm-nm -D --defined-only %t.tr.so | FileCheck %s --check-prefix=SYMS

// Cubins are ELF files; every matmul of the MLP is a cuBLAS call.
// MLP-NOT:     linalg.
// MLP-DAG:     llvm.mlir.global internal constant @__pw_image_pw_stage0_kernels("\7FELF
// MLP-DAG:     llvm.mlir.global internal constant @__pw_image_pw_stage3_kernels("\7FELF
// MLP-DAG:     llvm.func @pw_stage0_forward(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)
// MLP-DAG:     llvm.func @pw_stage3_backward(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)
// MLP-DAG:     llvm.call @pw_cuda_sgemm(

// Fatbins start with their magic (0xBA55ED50); the causal mask is a device
// global of stage 0's image, found through pw_cuda_global.
// TR-DAG:      llvm.mlir.global internal constant @__pw_image_pw_stage0_kernels("P\EDU\BA
// TR-DAG:      llvm.call @pw_cuda_global(
// TR-DAG:      llvm.func @pw_stage0_forward(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)
// TR-DAG:      llvm.func @pw_stage3_backward(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)

// SYMS-DAG: T pw_stage0_forward
// SYMS-DAG: T pw_stage0_backward
// SYMS-DAG: T pw_stage3_forward
// SYMS-DAG: T pw_stage3_backward
// UNDEF-NOT: mgpu
// UNDEF-DAG: pw_cuda_launch
// UNDEF-DAG: pw_cuda_sgemm
