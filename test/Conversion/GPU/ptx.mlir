// RUN: pipewave-opt %S/Inputs/ops.mlir --pipe-lower-to-gpu='format=isa cuda-arch=sm_90' | FileCheck %s --implicit-check-not=pw_cuda_alloc
// RUN: pipewave-opt %S/Inputs/ops.mlir --pipe-lower-to-gpu='format=isa precision=tf32' | FileCheck %s --check-prefix=TF32
// RUN: pipewave-opt %S/Inputs/ops.mlir --pipe-lower-to-gpu='format=isa precision=bf16' | FileCheck %s --check-prefix=BF16

// The whole pipeline with PTX images (format=isa needs no CUDA toolkit):
// LLVM-dialect host code calling the launch layer, one NUL-terminated PTX
// image per stage. The images hold one line each here (escaped): the checks
// follow the kernels in order within it.

// Every temporary here is placed in its stage's workspace
// (pipe-plan-workspace): nothing is allocated on the device at a call.
// CHECK: module attributes {pipewave.workspaces = {pw_stage2_forward = 576 : i64, pw_stage3_forward = 1088 : i64

// Launch layer declarations.
// CHECK-DAG: llvm.func @pw_cuda_launch(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.func @pw_cuda_sgemm(i32, i32, i32, i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, f32, !llvm.ptr, i64, i64, i64, !llvm.ptr)

// Stage 0: the launch packs the three bare pointers and launches on the
// wrapper's stream; no stream is created, nothing synchronises.
// CHECK-NOT:   mgpu
// CHECK-LABEL: llvm.func internal @ew(
// CHECK-DAG:     %[[THREE:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG:     %[[LIB:.*]] = llvm.mlir.addressof @__pw_library_pw_stage0_kernels
// CHECK-DAG:     %[[KER:.*]] = llvm.mlir.addressof @__pw_kernel_pw_stage0_kernels_ew_k0
// CHECK-DAG:     %[[IMG:.*]] = llvm.mlir.addressof @__pw_image_pw_stage0_kernels
// CHECK-DAG:     %[[NAME:.*]] = llvm.mlir.addressof @__pw_name_pw_stage0_kernels_ew_k0
// CHECK:         %[[ARGS:.*]] = llvm.alloca %[[THREE]] x !llvm.ptr
// CHECK:         llvm.call @pw_cuda_launch(%[[LIB]], %[[KER]], %[[IMG]], %[[NAME]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ARGS]], %{{.*}})
// CHECK-LABEL: llvm.func @pw_stage0_forward(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)

// Softmax's temporaries are views of the workspace (the last argument
// before the stream).
// CHECK-LABEL: llvm.func internal @softmax(
// CHECK-SAME:    %arg18: i64, %arg19: !llvm.ptr) attributes {{{.*}}pipewave.workspace_bytes = 576 : i64
// CHECK:         llvm.call @pw_cuda_launch(%{{.*}}, %arg19)

// CHECK-LABEL: llvm.func internal @matmul(
// CHECK-DAG:     %[[FP32:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NOT:     llvm.call @pw_cuda_launch
// CHECK:         llvm.call @pw_cuda_sgemm(%[[FP32]],
// CHECK:         llvm.call @pw_cuda_sgemm(%[[FP32]],
// TF32-LABEL:  llvm.func internal @matmul(
// TF32:          %[[MODE:.*]] = llvm.mlir.constant(1 : i32) : i32
// TF32:          llvm.call @pw_cuda_sgemm(%[[MODE]],
// BF16-LABEL:  llvm.func internal @matmul(
// BF16:          %[[MODE:.*]] = llvm.mlir.constant(2 : i32) : i32
// BF16:          llvm.call @pw_cuda_sgemm(%[[MODE]],

// The PTX: sm_90, PTX 8.0, global loads and stores from bare pointers.
// CHECK:       llvm.mlir.global internal constant @__pw_image_pw_stage0_kernels("
// CHECK-SAME:    .version 8.0\0A.target sm_90
// CHECK-SAME:    .visible .entry ew_k0(
// CHECK-SAME:    .maxntid 32, 1, 1
// CHECK-SAME:    ld.global.b32
// CHECK-SAME:    {{ex2.approx|__nv_expf}}
// CHECK-SAME:    st.global.b32
// CHECK-SAME:    \00")
// CHECK:       llvm.mlir.global internal @__pw_library_pw_stage0_kernels() {{.*}} : !llvm.ptr
// CHECK:         llvm.mlir.zero : !llvm.ptr

// Row reductions: warp shuffles (butterfly) and a shared-memory exchange.
// CHECK:       llvm.mlir.global internal constant @__pw_image_pw_stage2_kernels("
// CHECK-SAME:    .visible .entry softmax_k0(
// CHECK-SAME:    max.NaN.f32
// CHECK-SAME:    shfl.sync.bfly.b32
// CHECK-SAME:    .visible .entry softmax_k2(
// CHECK-SAME:    shfl.sync.bfly.b32
// CHECK:       llvm.mlir.global internal constant @__pw_image_pw_stage3_kernels("
// CHECK-SAME:    .visible .entry layernorm_k0(
// CHECK-SAME:    shfl.sync.bfly.b32
// CHECK-SAME:    .visible .entry layernorm_k3(
// CHECK-SAME:    {{rsqrt.approx|__nv_rsqrtf}}

// Gather and data movement kernels.
// CHECK:       llvm.mlir.global internal constant @__pw_image_pw_stage4_kernels("
// CHECK-SAME:    .visible .entry gather_k0(
// CHECK:       llvm.mlir.global internal constant @__pw_image_pw_stage5_kernels("
// CHECK-SAME:    .visible .entry movement_k0(
// CHECK-SAME:    .visible .entry movement_k1(
// CHECK-SAME:    .visible .entry movement_k2(
// The matmul stage needs no kernels.
// CHECK-NOT:   __pw_image_pw_stage6_kernels
