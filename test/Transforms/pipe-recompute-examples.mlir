// The stash of the examples cut into 4 stages under each policy, through
// pipe-partition, pipe-outline-stages, pipe-recompute and pipe-autodiff.
//
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute --pipe-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLPNONE
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute=policy=full --pipe-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLPFULL
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute=policy=selective --pipe-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLPSEL
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute=policy=full --pipe-autodiff 2>/dev/null | FileCheck %s --check-prefix=MLPFULLIR
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute=policy=selective --pipe-autodiff 2>/dev/null | FileCheck %s --check-prefix=MLPSELIR
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute --pipe-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=TFNONE
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute=policy=full --pipe-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=TFFULL
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute=policy=selective --pipe-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=TFSEL
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pipe-partition=num-stages=4 --pipe-outline-stages --pipe-recompute=policy=full --pipe-autodiff 2>/dev/null | FileCheck %s --check-prefix=TFFULLIR

// MLP (batch 16, f32). full keeps only the inputs: x (16x64, 4096 bytes),
// a 16x128 activation (8192 bytes), plus y (16x8, 512 bytes) in the last
// stage. selective stashes the matmul results (1x16x128), from which the
// bias adds, ReLUs (tosa.clamp) and reshapes are recomputed.
// MLPNONE: remark: pipe-recompute: stage 0 stashes 20480 bytes per microbatch (none: 20480, full: 4096, selective: 20480)
// MLPNONE: remark: pipe-recompute: stage 1 stashes 16384 bytes per microbatch (none: 16384, full: 8192, selective: 16384)
// MLPNONE: remark: pipe-recompute: stage 2 stashes 24576 bytes per microbatch (none: 24576, full: 8192, selective: 16384)
// MLPNONE: remark: pipe-recompute: stage 3 stashes 25600 bytes per microbatch (none: 25600, full: 8704, selective: 17408)
// MLPFULL: remark: pipe-recompute: stage 0 stashes 4096 bytes per microbatch
// MLPFULL: remark: pipe-recompute: stage 1 stashes 8192 bytes per microbatch
// MLPFULL: remark: pipe-recompute: stage 2 stashes 8192 bytes per microbatch
// MLPFULL: remark: pipe-recompute: stage 3 stashes 8704 bytes per microbatch
// MLPSEL: remark: pipe-recompute: stage 0 stashes 20480 bytes per microbatch
// MLPSEL: remark: pipe-recompute: stage 1 stashes 16384 bytes per microbatch
// MLPSEL: remark: pipe-recompute: stage 2 stashes 16384 bytes per microbatch
// MLPSEL: remark: pipe-recompute: stage 3 stashes 17408 bytes per microbatch

// full: each forward returns the stage's results and no stash.
// MLPFULLIR: func.func private @main_stage0_fwd({{.*}}) -> tensor<1x16x128xf32> {
// MLPFULLIR: func.func private @main_stage1_fwd({{.*}}) -> tensor<16x128xf32> {
// MLPFULLIR: func.func private @main_stage2_fwd({{.*}}) -> tensor<16x128xf32> {
// MLPFULLIR: func.func private @main_stage3_fwd({{.*}}) -> tensor<f32> {

// selective: the stash is matmul results. Stage 3: 8704 bytes of inputs
// (activation and y) + 1x16x128 + 1x16x8 floats = 17408.
// MLPSELIR: func.func private @main_stage0_fwd({{.*}}) -> (tensor<1x16x128xf32>, tensor<1x16x128xf32>, tensor<1x16x128xf32>) {
// MLPSELIR: func.func private @main_stage1_fwd({{.*}}) -> (tensor<16x128xf32>, tensor<1x16x128xf32>) {
// MLPSELIR: func.func private @main_stage2_fwd({{.*}}) -> (tensor<16x128xf32>, tensor<1x16x128xf32>) {
// MLPSELIR: func.func private @main_stage3_fwd({{.*}}) -> (tensor<f32>, tensor<1x16x128xf32>, tensor<1x16x8xf32>) {

// Transformer (batch 4, sequence 8, model dim 32, f32; a 4x8x32 activation
// is 4096 bytes). selective keeps the projection and MLP matmuls
// (contraction over 32 or 128), the attention scores (over 16) and the
// LayerNorm sums (over 32); the softmax (over 8 keys), the probs x V matmul
// (over 8: 16 FLOPs per element, not more than the threshold) and the
// element-wise work are recomputed.
// TFNONE: remark: pipe-recompute: stage 0 stashes 47744 bytes per microbatch (none: 47744, full: 4096, selective: 23040)
// TFNONE: remark: pipe-recompute: stage 1 stashes 94336 bytes per microbatch (none: 94336, full: 20480, selective: 24832)
// TFNONE: remark: pipe-recompute: stage 2 stashes 43648 bytes per microbatch (none: 43648, full: 8192, selective: 26880)
// TFNONE: remark: pipe-recompute: stage 3 stashes 86144 bytes per microbatch (none: 86144, full: 24576, selective: 28928)
// TFFULL: remark: pipe-recompute: stage 0 stashes 4096 bytes per microbatch
// TFFULL: remark: pipe-recompute: stage 1 stashes 20480 bytes per microbatch
// TFFULL: remark: pipe-recompute: stage 2 stashes 8192 bytes per microbatch
// TFFULL: remark: pipe-recompute: stage 3 stashes 24576 bytes per microbatch
// TFSEL: remark: pipe-recompute: stage 0 stashes 23040 bytes per microbatch
// TFSEL: remark: pipe-recompute: stage 1 stashes 24832 bytes per microbatch
// TFSEL: remark: pipe-recompute: stage 2 stashes 26880 bytes per microbatch
// TFSEL: remark: pipe-recompute: stage 3 stashes 28928 bytes per microbatch

// TFFULLIR: func.func private @main_stage0_fwd({{.*}}) -> (tensor<4x8x32xf32>, tensor<1x32x128xf32>) {
// TFFULLIR: func.func private @main_stage1_fwd({{.*}}) -> (tensor<4x8x32xf32>, tensor<1x32x32xf32>) {
// TFFULLIR: func.func private @main_stage2_fwd({{.*}}) -> (tensor<4x8x32xf32>, tensor<1x32x128xf32>) {
// TFFULLIR: func.func private @main_stage3_fwd({{.*}}) -> tensor<f32> {
