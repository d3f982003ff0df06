// REQUIRES: cuda-toolkit
// --target cuda makes an executable: the GPU stage code, the descriptor
// marking it as CUDA code (pw_model.device = PW_DEVICE_CUDA, the last
// field), linked with the runtime's CUDA device and the launch layer. No
// GPU is needed to build it; running it needs one (scripts/gpu-check.sh),
// so here only the checks that come before any GPU is touched run.

// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir --target cuda --stages 2 --microbatches 2 --emit=llvm -o - | FileCheck %s --check-prefix=LLVM
// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir --target cuda --stages 1 --microbatches 2 -o %t.mlp
// RUN: %llvm_tools_dir/llvm-nm %t.mlp | FileCheck %s --check-prefix=SYMS
// RUN: %t.mlp --print-ranks | FileCheck %s --check-prefix=RANKS
// RUN: env PW_DEVICE=host not %t.mlp 2>&1 | FileCheck %s --check-prefix=HOST

// The same model for the CPU keeps device 0.
// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir --stages 2 --microbatches 2 --emit=llvm -o - | FileCheck %s --check-prefix=CPU

// LLVM: @__pw_model = internal constant %struct.pw_model { i32 9, {{.*}}, i32 1, ptr {{.*}}, ptr null }
// LLVM: define {{.*}}void @pw_stage0_forward(ptr {{.*}}, ptr {{.*}}, ptr {{.*}})
// SYMS-DAG: T pw_runtime_cuda_device
// SYMS-DAG: U pw_cuda_launch
// SYMS-DAG: U pw_cuda_sgemm
// RANKS: 1
// HOST: pipewave: PW_DEVICE='host': this binary was compiled with --target cuda, its stage code runs on the 'cuda' device only
// CPU: @__pw_model = internal constant %struct.pw_model { i32 9, {{.*}}, i32 0, ptr {{.*}}, ptr null }
