// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pass-pipeline='builtin.module(pipe-partition{num-stages=4}, pipe-outline-stages, pipe-microbatch{microbatches=8}, pipe-insert-comm, pipe-schedule{microbatches=8}, sched-verify)' | FileCheck %s --check-prefix=MLP
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-partition{num-stages=2}, pipe-outline-stages, pipe-microbatch{microbatches=4}, pipe-insert-comm, pipe-schedule{microbatches=4}, sched-verify)' | FileCheck %s --check-prefix=TF

// The examples' MSE loss (reduce_sum over the batch times 1/N) combines by
// sum; activations crossing the cuts have microbatch shapes.

// MLP-LABEL: func.func private @main_stage0(
// MLP-SAME:      tensor<2x64xf32> {pipe.name = "x"}
// MLP-LABEL: func.func @main(
// MLP-SAME:      %{{.*}}: tensor<16x64xf32> {pipe.name = "x"}, %{{.*}}: tensor<16x8xf32> {pipe.name = "y"}
// MLP-SAME:      -> (tensor<f32> {pipe.combine = "sum"})
// MLP:         pipe.send act %{{.*}} from 0 to 1 tag 0 : tensor<1x2x128xf32>
// MLP:         pipe.send act %{{.*}} from 1 to 2 tag 1 : tensor<2x128xf32>
// MLP:       sched.program "1f1b" stages 4 microbatches 8

// TF-LABEL: func.func private @main_stage0(
// TF-SAME:      tensor<1x8x32xf32> {pipe.name = "x"}
// TF:         tosa.matmul {{.*}} : (tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8xf32>
// TF-LABEL: func.func @main(
// TF-SAME:      -> (tensor<f32> {pipe.combine = "sum"})
// TF:       sched.program "1f1b" stages 2 microbatches 4
