// RUN: pipewave-opt %s --pipe-plan-workspace='report=true' --split-input-file --verify-diagnostics | FileCheck %s
// RUN: pipewave-opt %s --pipe-plan-workspace='alignment=256' | FileCheck %s --check-prefix=ALIGN
// RUN: not pipewave-opt %s --pipe-plan-workspace='alignment=48' 2>&1 | FileCheck %s --check-prefix=BADALIGN
// RUN: not pipewave-opt %s --pipe-plan-workspace --pipe-plan-workspace 2>&1 | FileCheck %s --check-prefix=TWICE

// pipe-plan-workspace moves the static, non-escaping allocations of every
// function that nothing calls into one workspace argument: allocations live
// at the same time get disjoint bytes, the others share them.

// Three temporaries: %a (4 KiB) and %b (1 KiB) are live together (the
// generic reads %a and writes %b); %c is allocated after the last use of %a
// and takes its bytes. %a is placed first (largest), %b after it at 4096,
// %c at 0. The deallocations go.

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %arg0: memref<1024xf32>, %arg1: memref<256xf32>,
// CHECK-SAME:    %[[WS:arg[0-9]+]]: memref<5120xi8> {pipewave.workspace})
// CHECK-SAME:    attributes {pipewave.workspace_bytes = 5120 : i64}
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0]]][] : memref<5120xi8> to memref<1024xf32>
// CHECK:         %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C4096]]][] : memref<5120xi8> to memref<256xf32>
// CHECK:         %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0B]]][] : memref<5120xi8> to memref<256xf32>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK:         return

// ALIGN-LABEL: func.func @chain(
// ALIGN-SAME:    memref<5120xi8> {pipewave.workspace}
func.func @chain(%in: memref<1024xf32>, %out: memref<256xf32>) {
  // expected-remark @above {{workspace of 5120 bytes for 3 allocations of 6144 bytes; kept 0 escaping, 0 dynamic, 0 nested}}
  %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %in, %a : memref<1024xf32> to memref<1024xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  %sub = memref.subview %a[0] [256] [1] : memref<1024xf32> to memref<256xf32, strided<[1]>>
  linalg.copy ins(%sub : memref<256xf32, strided<[1]>>) outs(%b : memref<256xf32>)
  %c = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  linalg.copy ins(%b : memref<256xf32>) outs(%c : memref<256xf32>)
  linalg.copy ins(%c : memref<256xf32>) outs(%out : memref<256xf32>)
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<256xf32>
  memref.dealloc %c : memref<256xf32>
  return
}

// -----

// The offset of %c shows the sharing: %a is dead when %c is allocated.
// CHECK-LABEL: func.func @share(
// CHECK-SAME:    %[[WS:arg[0-9]+]]: memref<128xi8> {pipewave.workspace})
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0]]][] : memref<128xi8> to memref<16xf32>
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C64]]][] : memref<128xi8> to memref<8xf32>
// CHECK:         %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0B]]][] : memref<128xi8> to memref<4x4xf32>

// Unaligned sizes are padded: the 8-float buffer (32 bytes) starts at 64,
// or at 256 with alignment=256.
// ALIGN-LABEL: func.func @share(
// ALIGN-SAME:    memref<512xi8> {pipewave.workspace}
// ALIGN:         arith.constant 256 : index
func.func @share(%in: memref<16xf32>, %out: memref<4x4xf32>) {
  // expected-remark @above {{workspace of 128 bytes for 3 allocations of 160 bytes; kept 0 escaping, 0 dynamic, 0 nested}}
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<8xf32>
  %sub = memref.subview %a[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  memref.copy %sub, %b : memref<8xf32, strided<[1]>> to memref<8xf32>
  %c = memref.alloc() : memref<4x4xf32>
  %flat = memref.collapse_shape %c [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %sub2 = memref.subview %flat[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  memref.copy %b, %sub2 : memref<8xf32> to memref<8xf32, strided<[1]>>
  memref.copy %c, %out : memref<4x4xf32> to memref<4x4xf32>
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<8xf32>
  memref.dealloc %c : memref<4x4xf32>
  return
}

// -----

// A use inside a loop keeps the buffer live over the whole loop: %a and %b
// do not share bytes.
// CHECK-LABEL: func.func @loop(
// CHECK-SAME:    %[[WS:arg[0-9]+]]: memref<128xi8> {pipewave.workspace})
// CHECK:         memref.view %[[WS]][%{{.*}}][] : memref<128xi8> to memref<16xf32>
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C64]]][] : memref<128xi8> to memref<16xf32>
// CHECK:         scf.for
func.func @loop(%in: memref<16xf32>, %out: memref<16xf32>) {
  // expected-remark @above {{workspace of 128 bytes for 2 allocations of 128 bytes; kept 0 escaping, 0 dynamic, 0 nested}}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %a[%i] : memref<16xf32>
    memref.store %v, %b[%i] : memref<16xf32>
  }
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  return
}

// -----

// Kept as they are: a returned buffer, one stored into memory, one with a
// dynamic size and one allocated inside a loop; each keeps its dealloc.
// CHECK-LABEL: func.func @kept(
// CHECK-SAME:    %[[WS:arg[0-9]+]]: memref<64xi8> {pipewave.workspace})
// CHECK-SAME:    -> memref<4xf32>
// CHECK:         %[[RET:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[STORED:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[DYN:.*]] = memref.alloc(%arg0) : memref<?xf32>
// CHECK:         memref.view %[[WS]]
// CHECK:         scf.for
// CHECK:           %[[NESTED:.*]] = memref.alloc() : memref<4xf32>
// CHECK:           memref.dealloc %[[NESTED]]
// CHECK:         memref.dealloc %[[STORED]]
// CHECK:         memref.dealloc %[[DYN]]
// CHECK:         return %[[RET]]
func.func @kept(%n: index, %box: memref<memref<4xf32>>) -> memref<4xf32> {
  // expected-remark @above {{workspace of 64 bytes for 1 allocations of 16 bytes; kept 2 escaping, 1 dynamic, 1 nested}}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  %ret = memref.alloc() : memref<4xf32>
  %stored = memref.alloc() : memref<4xf32>
  memref.store %stored, %box[] : memref<memref<4xf32>>
  %dyn = memref.alloc(%n) : memref<?xf32>
  %tmp = memref.alloc() : memref<4xf32>
  linalg.fill ins(%cst : f32) outs(%tmp : memref<4xf32>)
  memref.copy %tmp, %ret : memref<4xf32> to memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %nested = memref.alloc() : memref<4xf32>
    linalg.fill ins(%cst : f32) outs(%nested : memref<4xf32>)
    memref.dealloc %nested : memref<4xf32>
  }
  memref.dealloc %tmp : memref<4xf32>
  memref.dealloc %stored : memref<4xf32>
  memref.dealloc %dyn : memref<?xf32>
  return %ret : memref<4xf32>
}

// -----

// A function some function calls keeps its signature and its allocations;
// its caller gets a workspace for its own. A function with nothing to place
// is left unchanged.
// CHECK-LABEL: func.func private @callee(%arg0: memref<4xf32>)
// CHECK-NOT:     pipewave.workspace
// CHECK:         memref.alloc()
// CHECK-LABEL: func.func @caller(
// CHECK-SAME:    memref<64xi8> {pipewave.workspace}
// CHECK:         call @callee(
// CHECK-LABEL: func.func @nothing(%arg0: memref<4xf32>) {
// CHECK-NEXT:    return
func.func private @callee(%out: memref<4xf32>) {
  %tmp = memref.alloc() : memref<4xf32>
  memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %tmp : memref<4xf32>
  return
}
func.func @caller(%out: memref<4xf32>) {
  // expected-remark @above {{workspace of 64 bytes for 1 allocations of 16 bytes; kept 0 escaping, 0 dynamic, 0 nested}}
  %tmp = memref.alloc() : memref<4xf32>
  call @callee(%tmp) : (memref<4xf32>) -> ()
  memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %tmp : memref<4xf32>
  return
}
func.func @nothing(%out: memref<4xf32>) {
  // expected-remark @above {{workspace of 0 bytes for 0 allocations of 0 bytes; kept 0 escaping, 0 dynamic, 0 nested}}
  return
}

// BADALIGN: error: pipe-plan-workspace: alignment must be a power of two, got 48

// A second run finds the workspace of the first.
// TWICE: error: pipe-plan-workspace: '@chain' already has a workspace
