// RUN: pipewave-compile %s --stages 2 --microbatches 4 --emit=mlir -o - | FileCheck %s
// RUN: pipewave-compile %s --stages 2 --microbatches 4 --emit=mlir --matmul=loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: pipewave-compile %s --stages 2 --microbatches 4 --emit=mlir --matmul=vector -o - | FileCheck %s --check-prefix=VECTOR
// RUN: pipewave-compile %s --stages 2 --microbatches 4 --emit=llvm -o - | FileCheck %s --check-prefix=LLVMIR

// pipe-lower-to-llvm lowers every stage function to the LLVM dialect and
// gives it a wrapper with the runtime's ABI,
//   void pw_stage<k>_forward(void *const *args, void *const *results),
// loading every argument and (preallocated) result buffer and calling the
// internal stage function with memref descriptors of the microbatch shapes.
// The entry composition and the schedule are gone. With --matmul=auto (the
// default) an f32 matmul with too few columns for vectors (here 6) calls the
// OpenBLAS helper; --matmul=vector tiles and vectorizes it (FMAs on vectors
// of the 6 columns); --matmul=loops leaves it to scalar loops.

// CHECK-NOT:   llvm.func @main(
// CHECK-DAG:   llvm.func @pw_sgemm_batched(f32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64,
// CHECK-DAG:   llvm.func internal @main_stage0(

// Stage 0: x (8 / 4 = 2 rows of 4) and w in, one 2x6 result.
// CHECK-LABEL: llvm.func @pw_stage0_forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK-DAG:     %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG:     %[[C4:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-DAG:     %[[X:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
// CHECK-DAG:     %[[WADDR:.*]] = llvm.getelementptr %arg0[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG:     %[[W:.*]] = llvm.load %[[WADDR]] : !llvm.ptr -> !llvm.ptr
// CHECK-DAG:     %[[OUT:.*]] = llvm.load %arg1 : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.call @main_stage0(%[[X]], %[[X]], %{{.*}}, %[[C2]], %[[C4]], %[[C4]], %{{.*}}, %[[W]], %[[W]], {{.*}}, %[[OUT]], %[[OUT]],
// CHECK-NEXT:    llvm.return
// CHECK:       llvm.func internal @main_stage1(

// Stage 1: the received activation in, the tanh out.
// CHECK-LABEL: llvm.func @pw_stage1_forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK:         llvm.call @main_stage1(
// CHECK-NEXT:    llvm.return

// VECTOR-NOT: pw_sgemm
// VECTOR:     llvm.func internal @main_stage0(
// VECTOR:       llvm.intr.fmuladd({{.*}}) : (vector<6xf32>, vector<6xf32>, vector<6xf32>) -> vector<6xf32>
// VECTOR:     llvm.func @pw_stage0_forward(

// LOOPS-NOT: pw_sgemm
// LOOPS:     llvm.func @pw_stage0_forward(
// LOOPS:     llvm.func @pw_stage1_forward(

// The LLVM IR adds the pw_model descriptor and main().
// LLVMIR-DAG: %struct.pw_model = type { i32, ptr, ptr, i32, i32, i32, i32, i32, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr }
// LLVMIR-DAG: @__pw_model = internal constant %struct.pw_model { i32 9, ptr @{{.*}}, ptr @{{.*}}, i32 2, i32 4, i32 2, i32 1,
// LLVMIR-DAG: define void @pw_stage0_forward(ptr {{.*}}, ptr {{.*}})
// LLVMIR-DAG: define void @pw_stage1_forward(ptr {{.*}}, ptr {{.*}})
// LLVMIR-DAG: define {{.*}}ptr @pw_get_model()
// LLVMIR-DAG: define {{.*}}i32 @main(i32 %0, ptr %1)
// LLVMIR-DAG: call {{.*}}i32 @pw_runtime_main(i32 %0, ptr %1, ptr {{.*}}@__pw_model)
// LLVMIR-DAG: declare void @pw_sgemm_batched(

func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}, %w: tensor<1x4x6xf32> {pipe.name = "w", pipe.param}) -> tensor<8x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[8, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %a = tosa.reshape %x, %s3 : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<1x8x4xf32>
  %m = tosa.matmul %a, %w, %zp, %zp : (tensor<1x8x4xf32>, tensor<1x4x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x6xf32>
  %r = tosa.reshape %m, %s2 : (tensor<1x8x6xf32>, !tosa.shape<2>) -> tensor<8x6xf32>
  pipe.split
  %t = tosa.tanh %r : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %t : tensor<8x6xf32>
}
