// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=8})' -o %t.pipewave-opt.mlir
// RUN: %mlir_opt --load-dialect-plugin=%pipewave_dialect_plugin --load-pass-plugin=%pipewave_pass_plugin %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=8})' -o %t.mlir-opt.mlir
// RUN: diff %t.pipewave-opt.mlir %t.mlir-opt.mlir
// RUN: FileCheck %s < %t.mlir-opt.mlir
// RUN: %mlir_opt --load-dialect-plugin=%pipewave_dialect_plugin --load-pass-plugin=%pipewave_pass_plugin %s --pass-pipeline='builtin.module(pipe-partition{num-stages=2 strategy=uniform},pipe-outline-stages,pipe-insert-comm,pipe-schedule{schedule=gpipe microbatches=2},sched-verify)' | FileCheck %s --check-prefix=PASSES

// The stock mlir-opt loads the pipewave dialect and pass plugins and prints
// the same program as pipewave-opt.

// CHECK: sched.program "1f1b" stages 4 microbatches 8 {

// PASSES: pipe.send act %{{.*}} from 0 to 1 tag 0 : tensor<2x4xf32>
// PASSES: sched.program "gpipe" stages 2 microbatches 2 forward_only {
func.func @main(%x: tensor<2x4xf32> {pipe.name = "x"}) -> tensor<2x4xf32> {
  %a = tosa.tanh %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = tosa.exp %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}
