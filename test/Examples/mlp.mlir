// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=8})' | FileCheck %s
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=8 strategy=uniform schedule=gpipe microbatches=16})' | FileCheck %s --check-prefix=GPIPE8

// The 8-layer MLP example cut into 4 balanced stages with 1F1B over 8
// microbatches; sched-verify (the last pass of pipe-train) accepts it.

// CHECK-DAG: func.func private @main_stage0({{.*}}{pipe.name = "x"}{{.*}}attributes {pipe.stage = 0 : i64}
// CHECK-DAG: func.func private @main_stage1({{.*}}attributes {pipe.stage = 1 : i64}
// CHECK-DAG: func.func private @main_stage2({{.*}}attributes {pipe.stage = 2 : i64}
// CHECK-DAG: func.func private @main_stage3({{.*}}{pipe.name = "y"}{{.*}} -> tensor<f32> attributes {pipe.stage = 3 : i64}
// CHECK-LABEL: func.func @main(
// CHECK:        call @main_stage0
// CHECK-NEXT:   pipe.send act %{{.*}} from 0 to 1 tag 0
// CHECK-NEXT:   pipe.recv act from 0 to 1 tag 0
// CHECK-NEXT:   call @main_stage1
// CHECK:        call @main_stage3
// CHECK-NEXT:   return
// CHECK-LABEL: sched.program "1f1b" stages 4 microbatches 8 {
// CHECK:         sched.rank 0 stages [0] {
// CHECK-COUNT-4:   sched.compute F stage 0
// CHECK-NEXT:      sched.recv grad stage 0 mb 0 from 1
// CHECK:         sched.rank 3 stages [3] {
// CHECK-NEXT:      sched.recv act stage 3 mb 0 from 2
// CHECK-NEXT:      sched.compute F stage 3 mb 0
// CHECK-NEXT:      sched.compute B stage 3 mb 0

// GPIPE8-LABEL: sched.program "gpipe" stages 8 microbatches 16 {
// GPIPE8: sched.rank 7 stages [7] {
// GPIPE8-COUNT-16: sched.compute F stage 7
// GPIPE8-NEXT: sched.compute B stage 7 mb 0
