// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=4})' | FileCheck %s
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=2 schedule=gpipe microbatches=2})' | FileCheck %s --check-prefix=TWO

// The two-block transformer example cut into balanced stages; values that
// skip a stage (residuals) are forwarded and the program verifies.

// CHECK-DAG: func.func private @main_stage3({{.*}}) -> tensor<f32> attributes {pipe.stage = 3 : i64}
// CHECK-LABEL: sched.program "1f1b" stages 4 microbatches 4 {
// CHECK: sched.rank 3 stages [3] {
// TWO-LABEL: sched.program "gpipe" stages 2 microbatches 2 {
