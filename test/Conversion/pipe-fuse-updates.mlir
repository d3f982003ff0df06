// RUN: pipewave-opt %s --pipe-fuse-updates --split-input-file | FileCheck %s

// A layer's backward after pipe-matmul-to-blas: the weight gradient's
// product comes first, the input gradient's (which reads the weight
// transposed) after it. The weight gradient's product moves after the
// input gradient's and takes the weight; the input gradient's product
// writes no parameter's gradient and stays as it is.
// CHECK-LABEL: func.func private @s0_bwd(
// CHECK-SAME:    %[[X:[^:]+]]: memref<8x4xf32> {pipe.name = "x"}, %[[W:[^:]+]]: memref<1x4x4xf32> {pipe.name = "w", pipe.param}
// CHECK:         %[[T:.*]] = memref.alloc()
// CHECK:         %[[DX:.*]] = memref.cast %[[T]]
// CHECK-NEXT:    call @pw_sgemm_batched(%{{.*}}, %{{.*}}, %{{.*}}, %[[DX]])
// CHECK-NEXT:    %[[P:.*]] = memref.cast %[[W]] : memref<1x4x4xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    call @pw_sgemm_batched_update(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[P]]) : (f32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
// CHECK-NOT:     call @pw_sgemm
// CHECK:         return
// CHECK:       func.func private @pw_sgemm_batched_update(f32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>)
!dyn = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
func.func private @pw_sgemm_batched(f32, !dyn, !dyn, !dyn)
func.func private @s0_fwd()
func.func private @s0(%a: memref<8x4xf32>, %x: memref<8x4xf32> {pipe.name = "x"},
                      %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                      %y: memref<8x4xf32> {bufferize.result})
    attributes {pipe.stage = 0 : i64, pipe.fwd = @s0_fwd, pipe.bwd = @s0_bwd,
                pipe.grad_args = array<i64: 0, 2>} {
  return
}
func.func private @s0_bwd(%a: memref<8x4xf32>, %x: memref<8x4xf32> {pipe.name = "x"},
                          %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                          %dy: memref<8x4xf32>,
                          %da: memref<8x4xf32> {bufferize.result},
                          %dw: memref<1x4x4xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %xt = memref.transpose %x3 (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
  %dy3 = memref.expand_shape %dy [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %a0 = memref.cast %xt : memref<1x4x8xf32, strided<[32, 1, 4]>> to !dyn
  %b0 = memref.cast %dy3 : memref<1x8x4xf32> to !dyn
  %c0 = memref.cast %dw : memref<1x4x4xf32> to !dyn
  call @pw_sgemm_batched(%zero, %a0, %b0, %c0) : (f32, !dyn, !dyn, !dyn) -> ()
  %wt = memref.transpose %w (d0, d1, d2) -> (d0, d2, d1) : memref<1x4x4xf32> to memref<1x4x4xf32, strided<[16, 1, 4]>>
  %tmp = memref.alloc() {alignment = 64 : i64} : memref<1x8x4xf32>
  %b1 = memref.cast %wt : memref<1x4x4xf32, strided<[16, 1, 4]>> to !dyn
  %c1 = memref.cast %tmp : memref<1x8x4xf32> to !dyn
  call @pw_sgemm_batched(%zero, %b0, %b1, %c1) : (f32, !dyn, !dyn, !dyn) -> ()
  %tmp2 = memref.collapse_shape %tmp [[0, 1], [2]] : memref<1x8x4xf32> into memref<8x4xf32>
  memref.copy %tmp2, %da : memref<8x4xf32> to memref<8x4xf32>
  memref.dealloc %tmp : memref<1x8x4xf32>
  return
}

// -----

// The accumulating variant: the product adds to the accumulator, which the
// end copies into its own out-parameter (the same buffer at run time); a
// product after every read of the weight takes it where it is.
// CHECK-LABEL: func.func private @s0_bwd_acc(
// CHECK-SAME:    %[[W:[^:]+]]: memref<1x4x4xf32> {pipe.name = "w", pipe.param}
// CHECK:         %[[P:.*]] = memref.cast %[[W]]
// CHECK-NEXT:    call @pw_sgemm_batched_update(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[P]])
// CHECK-NEXT:    memref.copy
!dyn = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
func.func private @pw_sgemm_batched(f32, !dyn, !dyn, !dyn)
func.func private @s0_fwd()
func.func private @s0(%x: memref<8x4xf32> {pipe.name = "x"},
                      %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                      %y: memref<8x4xf32> {bufferize.result})
    attributes {pipe.stage = 0 : i64, pipe.fwd = @s0_fwd, pipe.bwd = @s0_fwd, pipewave.bwd_acc = @s0_bwd_acc,
                pipe.grad_args = array<i64: 1>} {
  return
}
func.func private @s0_bwd_acc(%x: memref<8x4xf32> {pipe.name = "x"},
                              %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                              %dy: memref<8x4xf32>,
                              %acc: memref<1x4x4xf32> {pipewave.accumulates = 0 : i64},
                              %dw: memref<1x4x4xf32> {bufferize.result}) {
  %one = arith.constant 1.0 : f32
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %xt = memref.transpose %x3 (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
  %dy3 = memref.expand_shape %dy [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %a0 = memref.cast %xt : memref<1x4x8xf32, strided<[32, 1, 4]>> to !dyn
  %b0 = memref.cast %dy3 : memref<1x8x4xf32> to !dyn
  %c0 = memref.cast %acc : memref<1x4x4xf32> to !dyn
  call @pw_sgemm_batched(%one, %a0, %b0, %c0) : (f32, !dyn, !dyn, !dyn) -> ()
  memref.copy %acc, %dw : memref<1x4x4xf32> to memref<1x4x4xf32>
  return
}

// -----

// A weight used twice: its gradient's first term stays a plain product, the
// second (the last writer, which adds to it) takes the weight.
// CHECK-LABEL: func.func private @twice_bwd(
// CHECK:         call @pw_sgemm_batched(
// CHECK:         call @pw_sgemm_batched_update(
// CHECK:         return
// Stays a plain product: an element-wise op adds to the gradient after it.
// CHECK-LABEL: func.func private @added_bwd(
// CHECK-NOT:     _update
// CHECK:         return
!dyn = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
func.func private @pw_sgemm_batched(f32, !dyn, !dyn, !dyn)
func.func private @twice_fwd()
func.func private @twice(%x: memref<8x4xf32> {pipe.name = "x"},
                         %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                         %y: memref<8x4xf32> {bufferize.result})
    attributes {pipe.stage = 0 : i64, pipe.fwd = @twice_fwd, pipe.bwd = @twice_bwd,
                pipe.grad_args = array<i64: 1>} {
  return
}
func.func private @twice_bwd(%x: memref<8x4xf32> {pipe.name = "x"},
                             %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                             %dy: memref<8x4xf32>,
                             %dw: memref<1x4x4xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %xt = memref.transpose %x3 (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
  %dy3 = memref.expand_shape %dy [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %a0 = memref.cast %xt : memref<1x4x8xf32, strided<[32, 1, 4]>> to !dyn
  %b0 = memref.cast %dy3 : memref<1x8x4xf32> to !dyn
  %c0 = memref.cast %dw : memref<1x4x4xf32> to !dyn
  call @pw_sgemm_batched(%zero, %a0, %b0, %c0) : (f32, !dyn, !dyn, !dyn) -> ()
  call @pw_sgemm_batched(%one, %a0, %b0, %c0) : (f32, !dyn, !dyn, !dyn) -> ()
  return
}
func.func private @added_fwd()
func.func private @added(%x: memref<8x4xf32> {pipe.name = "x"},
                         %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                         %y: memref<8x4xf32> {bufferize.result})
    attributes {pipe.stage = 1 : i64, pipe.fwd = @added_fwd, pipe.bwd = @added_bwd,
                pipe.grad_args = array<i64: 1>} {
  return
}
func.func private @added_bwd(%x: memref<8x4xf32> {pipe.name = "x"},
                             %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                             %dy: memref<8x4xf32>,
                             %dw: memref<1x4x4xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %xt = memref.transpose %x3 (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
  %dy3 = memref.expand_shape %dy [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %a0 = memref.cast %xt : memref<1x4x8xf32, strided<[32, 1, 4]>> to !dyn
  %b0 = memref.cast %dy3 : memref<1x8x4xf32> to !dyn
  %c0 = memref.cast %dw : memref<1x4x4xf32> to !dyn
  call @pw_sgemm_batched(%zero, %a0, %b0, %c0) : (f32, !dyn, !dyn, !dyn) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%dw : memref<1x4x4xf32>) {
  ^bb0(%out: f32):
    %0 = arith.addf %out, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Stays a plain product: the weight is read after it, and what comes in
// between overwrites the product's operand (dy), so the product cannot move
// past it.
// CHECK-LABEL: func.func private @clobber_bwd(
// CHECK-NOT:     _update
// CHECK:         return
!dyn = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
func.func private @pw_sgemm_batched(f32, !dyn, !dyn, !dyn)
func.func private @clobber_fwd()
func.func private @clobber(%x: memref<8x4xf32> {pipe.name = "x"},
                           %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                           %y: memref<8x4xf32> {bufferize.result})
    attributes {pipe.stage = 0 : i64, pipe.fwd = @clobber_fwd, pipe.bwd = @clobber_bwd,
                pipe.grad_args = array<i64: 1>} {
  return
}
func.func private @clobber_bwd(%x: memref<8x4xf32> {pipe.name = "x"},
                               %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                               %dy: memref<8x4xf32>,
                               %dw: memref<1x4x4xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %xt = memref.transpose %x3 (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
  %dy3 = memref.expand_shape %dy [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %g = memref.alloc() {alignment = 64 : i64} : memref<1x8x4xf32>
  memref.copy %dy3, %g : memref<1x8x4xf32> to memref<1x8x4xf32>
  %a0 = memref.cast %xt : memref<1x4x8xf32, strided<[32, 1, 4]>> to !dyn
  %b0 = memref.cast %g : memref<1x8x4xf32> to !dyn
  %c0 = memref.cast %dw : memref<1x4x4xf32> to !dyn
  call @pw_sgemm_batched(%zero, %a0, %b0, %c0) : (f32, !dyn, !dyn, !dyn) -> ()
  linalg.fill ins(%zero : f32) outs(%g : memref<1x8x4xf32>)
  %wt = memref.transpose %w (d0, d1, d2) -> (d0, d2, d1) : memref<1x4x4xf32> to memref<1x4x4xf32, strided<[16, 1, 4]>>
  %tmp = memref.alloc() {alignment = 64 : i64} : memref<1x8x4xf32>
  %b1 = memref.cast %wt : memref<1x4x4xf32, strided<[16, 1, 4]>> to !dyn
  %c1 = memref.cast %tmp : memref<1x8x4xf32> to !dyn
  call @pw_sgemm_batched(%zero, %b0, %b1, %c1) : (f32, !dyn, !dyn, !dyn) -> ()
  memref.dealloc %tmp : memref<1x8x4xf32>
  memref.dealloc %g : memref<1x8x4xf32>
  return
}

// -----

// Stays a plain product: the product sits in a loop, and the gradient of a
// frozen weight (no pipe.param) is not a parameter's.
// CHECK-LABEL: func.func private @loop_bwd(
// CHECK-NOT:     _update
// CHECK:         return
!dyn = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
func.func private @pw_sgemm_batched(f32, !dyn, !dyn, !dyn)
func.func private @loop_fwd()
func.func private @loop(%x: memref<8x4xf32> {pipe.name = "x"},
                        %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                        %v: memref<1x4x4xf32> {pipe.name = "v"},
                        %y: memref<8x4xf32> {bufferize.result})
    attributes {pipe.stage = 0 : i64, pipe.fwd = @loop_fwd, pipe.bwd = @loop_bwd,
                pipe.grad_args = array<i64: 1, 2>} {
  return
}
func.func private @loop_bwd(%x: memref<8x4xf32> {pipe.name = "x"},
                            %w: memref<1x4x4xf32> {pipe.name = "w", pipe.param},
                            %v: memref<1x4x4xf32> {pipe.name = "v"},
                            %dy: memref<8x4xf32>,
                            %dw: memref<1x4x4xf32> {bufferize.result},
                            %dv: memref<1x4x4xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %c0i = arith.constant 0 : index
  %c1i = arith.constant 1 : index
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %xt = memref.transpose %x3 (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
  %dy3 = memref.expand_shape %dy [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
  %a0 = memref.cast %xt : memref<1x4x8xf32, strided<[32, 1, 4]>> to !dyn
  %b0 = memref.cast %dy3 : memref<1x8x4xf32> to !dyn
  %c0 = memref.cast %dw : memref<1x4x4xf32> to !dyn
  %cv = memref.cast %dv : memref<1x4x4xf32> to !dyn
  scf.for %i = %c0i to %c1i step %c1i {
    func.call @pw_sgemm_batched(%zero, %a0, %b0, %c0) : (f32, !dyn, !dyn, !dyn) -> ()
  }
  call @pw_sgemm_batched(%zero, %a0, %b0, %cv) : (f32, !dyn, !dyn, !dyn) -> ()
  return
}
