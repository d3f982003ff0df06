// sched-export writes the program as an action list; pipe-schedule reads it
// back with schedule=file. For every schedule the round trip gives the same
// compute order, placement and name (the exported lists are identical); the
// schedules whose messages the library places from the compute order
// (interleaved, hanayo, zb-h1, zb-v: the same lowering the file reader
// uses) come back as the identical program, messages included.

// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=1f1b microbatches=4" --sched-export="file=-" -o %t.1f1b.mlir | FileCheck %s --check-prefix=STDOUT

// STDOUT:      # pipewave schedule S=4 M=4 name=1f1b
// STDOUT-NEXT: stages 0: 0
// STDOUT-NEXT: stages 1: 1
// STDOUT-NEXT: stages 2: 2
// STDOUT-NEXT: stages 3: 3
// STDOUT-NEXT: 0: 0F0 0F1 0F2 0F3 0B0 0B1 0B2 0B3 OPT0
// STDOUT-NEXT: 1: 1F0 1F1 1F2 1B0 1F3 1B1 1B2 1B3 OPT1
// STDOUT-NEXT: 2: 2F0 2F1 2B0 2F2 2B1 2F3 2B2 2B3 OPT2
// STDOUT-NEXT: 3: 3F0 3B0 3F1 3B1 3F2 3B2 3F3 3B3 OPT3
// STDOUT-NOT:  {{.}}

// gpipe and 1f1b: the same action list after the round trip.
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=4" --sched-export="file=%t.gpipe.txt" -o %t.gpipe.mlir
// RUN: pipewave-opt %t.gpipe.mlir --pipe-schedule="schedule=file file=%t.gpipe.txt" --sched-verify --sched-export="file=%t.gpipe.back.txt" -o /dev/null
// RUN: diff %t.gpipe.txt %t.gpipe.back.txt
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=1f1b microbatches=4" --sched-export="file=%t.1f1b.txt" -o %t.1f1b.mlir
// RUN: pipewave-opt %t.1f1b.mlir --pipe-schedule="schedule=file file=%t.1f1b.txt" --sched-verify --sched-export="file=%t.1f1b.back.txt" -o /dev/null
// RUN: diff %t.1f1b.txt %t.1f1b.back.txt

// The others: the identical module, program included.
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=interleaved microbatches=4" --sched-export="file=%t.interleaved.txt" -o %t.interleaved.mlir
// RUN: pipewave-opt %t.interleaved.mlir --pipe-schedule="schedule=file file=%t.interleaved.txt" --sched-verify -o %t.interleaved.back.mlir
// RUN: diff %t.interleaved.mlir %t.interleaved.back.mlir
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=hanayo microbatches=4" --sched-export="file=%t.hanayo.txt" -o %t.hanayo.mlir
// RUN: pipewave-opt %t.hanayo.mlir --pipe-schedule="schedule=file file=%t.hanayo.txt" --sched-verify -o %t.hanayo.back.mlir
// RUN: diff %t.hanayo.mlir %t.hanayo.back.mlir
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zb-h1 microbatches=4" --sched-export="file=%t.zbh1.txt" -o %t.zbh1.mlir
// RUN: pipewave-opt %t.zbh1.mlir --pipe-schedule="schedule=file file=%t.zbh1.txt" --sched-verify -o %t.zbh1.back.mlir
// RUN: diff %t.zbh1.mlir %t.zbh1.back.mlir
// RUN: pipewave-opt %s --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zb-v microbatches=4" --sched-export="file=%t.zbv.txt" -o %t.zbv.mlir
// RUN: pipewave-opt %t.zbv.mlir --pipe-schedule="schedule=file file=%t.zbv.txt" --sched-verify -o %t.zbv.back.mlir
// RUN: diff %t.zbv.mlir %t.zbv.back.mlir
// RUN: FileCheck %s --check-prefix=ZBVFILE < %t.zbv.txt

// ZBVFILE: # pipewave schedule S=4 M=4 name=zb-v
// ZBVFILE: 0: 0F0 0F1 0F2 3F0

// Inference steps round-trip too (forward-only in the header).
// RUN: pipewave-opt %S/pipe-schedule-forward-only.mlir --pipe-partition="num-stages=4 strategy=uniform" --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=zb-v microbatches=2" --sched-export="file=%t.fwd.txt" -o %t.fwd.mlir
// RUN: pipewave-opt %t.fwd.mlir --pipe-schedule="schedule=file file=%t.fwd.txt" --sched-verify -o %t.fwd.back.mlir
// RUN: diff %t.fwd.mlir %t.fwd.back.mlir

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<f32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = tosa.exp %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %d {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
