// RUN: pipewave-opt %S/Inputs/ops.mlir --pass-pipeline='builtin.module(pipe-isolate-stages,func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),canonicalize,func.func(pipe-fuse-elementwise),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},func.func(pipe-unique-result-buffers),buffer-results-to-out-params{add-result-attr hoist-static-allocs},buffer-deallocation-pipeline,canonicalize,pipe-stage-abi,pipe-gpu-stream-args,pipe-matmul-to-cublas,pipe-gpu-map-kernels,pipe-verify-gpu-mapping,canonicalize,cse)' | FileCheck %s

// The front of pipe-lower-to-gpu up to the mapping check, on one stage per
// op family (Inputs/ops.mlir): every linalg op became a launch of a kernel
// in its stage's gpu.module, matmuls became pw_cuda_sgemm calls on the
// stage's stream, and nothing else touches the buffers on the host.

// CHECK: module attributes {gpu.container_module}
// CHECK-NOT: linalg.
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store

// Element-wise (x + y) * exp(x): one fused grid-stride kernel.
// CHECK-LABEL: func.func private @ew(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {pipewave.stream})
// CHECK:         gpu.launch_func @pw_stage0_kernels::@ew_k0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%arg0 : memref<4x8xf32>, %arg1 : memref<4x8xf32>, %arg2 : memref<4x8xf32>)
// CHECK-NEXT:    return
// The wrappers take the stream as a third argument and pass it on.
// CHECK-LABEL: func.func @pw_stage0_forward(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr {pipewave.stream})
// CHECK:         call @ew(%{{.*}}, %{{.*}}, %{{.*}}, %arg2)

// Softmax: block reduction (max, starting from the fill's value: the fill
// has no kernel of its own), element-wise, block reduction (sum),
// element-wise; temporaries allocated on the host.
// CHECK-LABEL: func.func private @softmax(
// CHECK-NOT:     linalg.fill
// CHECK:         memref.alloc() {{.*}} : memref<4xf32>
// CHECK:         gpu.launch_func @pw_stage2_kernels::@softmax_k0 blocks in (%c4, %c1, %c1) threads in (%c32, %c1, %c1) args(%{{.*}} : memref<4x1x32xf32>, %{{.*}} : memref<4x1xf32>)
// CHECK:         gpu.launch_func @pw_stage2_kernels::@softmax_k1
// CHECK:         gpu.launch_func @pw_stage2_kernels::@softmax_k2
// CHECK:         gpu.launch_func @pw_stage2_kernels::@softmax_k3
// CHECK-NOT:     gpu.launch_func
// CHECK:         memref.dealloc

// Gather: the table is passed to the kernel, which loads at the index.
// CHECK-LABEL: func.func private @gather(
// CHECK:         gpu.launch_func @pw_stage4_kernels::@gather_k0 {{.*}} args(%arg1 : memref<1x4xi32>, %arg2 : memref<1x4x8xf32>, %arg0 : memref<1x10x8xf32>)

// Transpose, reshape (a view), slice + concat (copies between views).
// CHECK-LABEL: func.func private @movement(
// CHECK:         gpu.launch_func @pw_stage5_kernels::@movement_k0 {{.*}} args(%arg0 : memref<4x6xf32>, %{{.*}} : memref<6x4xf32>)
// CHECK:         memref.subview
// CHECK:         gpu.launch_func @pw_stage5_kernels::@movement_k1 {{.*}} args(%{{.*}} : memref<3x4xf32, strided<[4, 1], offset: 4>>, %{{.*}} : memref<3x4xf32, strided<[4, 1]>>)
// CHECK:         gpu.launch_func @pw_stage5_kernels::@movement_k2 {{.*}} args(%{{.*}} : memref<2x4xf32, strided<[4, 1], offset: 16>>, %{{.*}} : memref<2x4xf32, strided<[4, 1], offset: 12>>)

// Matmuls: cuBLAS on the stream, the zero fill folded into beta = 0; the
// transposed right operand is a transposed view (transB = 1, ldb = 8), not
// a copy.
// CHECK-LABEL: func.func private @matmul(
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[M:.*]] = arith.constant 4 : i64
// CHECK-DAG:     %[[N:.*]] = arith.constant 16 : i64
// CHECK-DAG:     %[[K:.*]] = arith.constant 8 : i64
// CHECK-NOT:     gpu.launch_func
// CHECK:         call @pw_cuda_sgemm(%[[ZERO]], %[[ZERO]], %[[ZERO]], %[[M]], %[[N]], %[[K]], %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[N]], %{{.*}}, %[[BETA]], %{{.*}}, %[[N]], %{{.*}}, %{{.*}}, %arg5)
// CHECK:         memref.transpose %arg2 (d0, d1, d2) -> (d0, d2, d1)
// CHECK:         call @pw_cuda_sgemm(%[[ZERO]], %[[ZERO]], %[[ONE]], %[[M]], %[[N]], %[[K]], %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %[[BETA]], %{{.*}}, %[[N]], %{{.*}}, %{{.*}}, %arg5)
// CHECK-NOT:     memref.alloc
// CHECK:         return

// The kernels. Element-wise: grid-stride loop over the 32 elements.
// CHECK-LABEL: gpu.module @pw_stage0_kernels
// CHECK:       gpu.func @ew_k0(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>, %arg2: memref<4x8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// CHECK-DAG:     %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG:     %[[BID:.*]] = gpu.block_id x
// CHECK-DAG:     %[[BDIM:.*]] = gpu.block_dim x
// CHECK-DAG:     %[[GDIM:.*]] = gpu.grid_dim x
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %c32 step %{{.*}} {
// CHECK:           %[[J:.*]] = arith.remui %[[I]], %c8
// CHECK:           %[[R:.*]] = arith.divui %[[I]], %c8
// CHECK:           %[[X:.*]] = memref.load %arg0[%[[R]], %[[J]]]
// CHECK:           %[[Y:.*]] = memref.load %arg1[%[[R]], %[[J]]]
// CHECK:           %[[E:.*]] = math.exp %[[X]]
// CHECK:           %[[S:.*]] = arith.addf %[[X]], %[[Y]]
// CHECK:           %[[P:.*]] = arith.mulf %[[S]], %[[E]]
// CHECK:           memref.store %[[P]], %arg2[%[[R]], %[[J]]]

// Broadcast: the bias row is read at row 0.
// CHECK-LABEL: gpu.module @pw_stage1_kernels
// CHECK:       gpu.func @bcast_k0(
// CHECK:           memref.load %arg1[%c0, %{{.*}}] : memref<1x8xf32>

// Row reductions: one block per row, threads stride over the row from the
// identity, then gpu.all_reduce; thread 0 folds in the initial value (the
// fill's -FLT_MAX, not a load) and stores.
// CHECK-LABEL: gpu.module @pw_stage2_kernels
// CHECK:       gpu.func @softmax_k0(%arg0: memref<4x1x32xf32>, %arg1: memref<4x1xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[INIT:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK-DAG:     %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG:     %[[ROW:.*]] = gpu.block_id x
// CHECK-DAG:     %[[BDIM:.*]] = gpu.block_dim x
// CHECK:         %[[PART:.*]] = scf.for %[[J:.*]] = %[[TID]] to %c32 step %[[BDIM]] iter_args(%[[ACC:.*]] = %[[NEGINF]]) -> (f32) {
// CHECK:           %[[V:.*]] = memref.load %arg0[%[[ROW]], %c0, %[[J]]]
// CHECK:           %[[M:.*]] = arith.maximumf %[[V]], %[[ACC]]
// CHECK:           scf.yield %[[M]]
// CHECK:         %[[ALL:.*]] = gpu.all_reduce maximumf %[[PART]] uniform
// CHECK:         scf.if
// CHECK-NOT:       memref.load
// CHECK:           %[[NEW:.*]] = arith.maximumf %[[ALL]], %[[INIT]]
// CHECK:           memref.store %[[NEW]], %arg1[%[[ROW]], %c0]
// CHECK:       gpu.func @softmax_k1(
// CHECK:         math.exp
// CHECK:       gpu.func @softmax_k2(
// CHECK:         gpu.all_reduce add
// CHECK:       gpu.func @softmax_k3(

// Layer norm: sum reductions with a block of 64 threads per row of 64.
// CHECK-LABEL: gpu.module @pw_stage3_kernels
// CHECK:       gpu.func @layernorm_k0(%arg0: memref<4x1x64xf32>, %arg1: memref<4x1xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// CHECK:         gpu.all_reduce add
// CHECK:       gpu.func @layernorm_k2(
// CHECK:         gpu.all_reduce add
// CHECK:       gpu.func @layernorm_k3(
// CHECK:         math.rsqrt

// Gather: the index is loaded and used to address the table.
// CHECK-LABEL: gpu.module @pw_stage4_kernels
// CHECK:       gpu.func @gather_k0(%arg0: memref<1x4xi32>, %arg1: memref<1x4x8xf32>, %arg2: memref<1x10x8xf32>)
// CHECK:           %[[IDX:.*]] = memref.load %arg0[
// CHECK:           %[[ROW:.*]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK:           %[[V:.*]] = memref.load %arg2[%c0, %[[ROW]], %{{.*}}]
// CHECK:           memref.store %[[V]], %arg1[

// Transpose: read at (j, i), written at (i, j).
// CHECK-LABEL: gpu.module @pw_stage5_kernels
// CHECK:       gpu.func @movement_k0(%arg0: memref<4x6xf32>, %arg1: memref<6x4xf32>)
// CHECK:           %[[C:.*]] = arith.remui %{{.*}}, %c4
// CHECK:           %[[R:.*]] = arith.divui %{{.*}}, %c4
// CHECK:           %[[V:.*]] = memref.load %arg0[%[[C]], %[[R]]]
// CHECK:           memref.store %[[V]], %arg1[%[[R]], %[[C]]]
// CHECK:       gpu.func @movement_k1(%arg0: memref<3x4xf32, strided<[4, 1], offset: 4>>, %arg1: memref<3x4xf32, strided<[4, 1]>>)
// CHECK-NOT:   gpu.module @pw_stage6_kernels
