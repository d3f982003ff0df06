// RUN: pipewave-opt %s -split-input-file --pipe-plan="devices-per-node=2 device=%S/Inputs/plan-device.json" -verify-diagnostics -o /dev/null
// RUN: not pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-plan="device=tpu" 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-plan="memory=lots" 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: not pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-plan="nodes=0" 2>&1 | FileCheck %s --check-prefix=NODES
// RUN: not pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-plan="profile=%S/Inputs/no-such-profile-pbs-8.txt" 2>&1 | FileCheck %s --check-prefix=PROFILE
// RUN: not pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-plan="devices-per-node=2 device=%S/Inputs/plan-device.json memory=100KB" 2>&1 | FileCheck %s --check-prefix=NOFIT

// DEVICE: error: pipe-plan: unknown device 'tpu' (cpu, v100, a100, h100, h200, a calibrated device or a .json device file)
// MEMORY: error: pipe-plan: memory= expects a size such as 16GiB, got 'lots'
// NODES: error: pipe-plan: devices-per-node and nodes must be at least 1, global-batch, max-stages and profile-batch at least 0
// PROFILE: error: pipe-plan: {{.*}}no-such-profile-pbs-8.txt
// NOFIT:      error: pipe-plan: 28 layers (the costed operations of '@main' on slow); global batch 16 on 1 x 2 slow, 97.7 KiB per device
// NOFIT-NEXT: no plan: no plan fits in

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error@+1 {{pipe-plan: the planner chooses the stage boundaries; remove the pipe.split markers}}
  pipe.split
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  return %x : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  // expected-error@+1 {{pipe-plan: '@main' is already outlined into stages; run pipe-plan before pipe-partition}}
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// expected-error@+1 {{pipe-plan: '@main' has no operation with a cost to plan}}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// -----

// expected-error@+1 {{pipe-plan: '@main' has no data input with a static batch dimension 0; set global-batch}}
func.func @main(%w: tensor<4x8xf32> {pipe.param, pipe.name = "w"}) -> tensor<4x8xf32> {
  %a = tosa.tanh %w : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}
