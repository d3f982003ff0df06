// RUN: pipewave-opt %s --pipe-plan-workspace='stack-scalars=true report=true' --verify-diagnostics | FileCheck %s
// RUN: pipewave-opt %s --pipe-plan-workspace | FileCheck %s --check-prefix=OFF

// With stack-scalars (the CPU pipeline's setting), a 0-d temporary that
// would be placed becomes a memref.alloca with its alignment, and its
// deallocation goes; the 1-d one still gets the workspace. Without it
// (the GPU pipeline), both are placed.

// CHECK-LABEL: func.func @loss_grad(
// CHECK-SAME:    %[[WS:arg[0-9]+]]: memref<64xi8> {pipewave.workspace})
// CHECK:         %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<f32>
// CHECK:         memref.store %{{.*}}, %[[S]][] : memref<f32>
// CHECK:         memref.view %[[WS]][%{{.*}}][] : memref<64xi8> to memref<16xf32>
// CHECK-NOT:     memref.alloc()
// CHECK-NOT:     memref.dealloc
// CHECK:         return

// OFF-LABEL: func.func @loss_grad(
// OFF-SAME:    memref<128xi8> {pipewave.workspace})
// OFF-NOT:     memref.alloca
func.func @loss_grad(%seed: memref<f32>, %diff: memref<16xf32>, %out: memref<16xf32>) {
  // expected-remark @above {{workspace of 64 bytes for 1 allocations of 64 bytes; kept 0 escaping, 0 dynamic, 0 nested; 1 on the stack}}
  %scale = memref.alloc() {alignment = 64 : i64} : memref<f32>
  %v = memref.load %seed[] : memref<f32>
  %c = arith.constant 0.0625 : f32
  %s = arith.mulf %v, %c : f32
  memref.store %s, %scale[] : memref<f32>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%scale, %diff : memref<f32>, memref<16xf32>) outs(%t : memref<16xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %m = arith.mulf %a, %d : f32
    linalg.yield %m : f32
  }
  linalg.copy ins(%t : memref<16xf32>) outs(%out : memref<16xf32>)
  memref.dealloc %scale : memref<f32>
  memref.dealloc %t : memref<16xf32>
  return
}
