// RUN: pipewave-opt %s -split-input-file --sched-simulate -verify-diagnostics -o /dev/null
// RUN: not pipewave-opt %s -split-input-file --sched-simulate="device=tpu" 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not pipewave-opt %s -split-input-file --sched-simulate="memory=lots" 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: not pipewave-opt %s -split-input-file --sched-simulate="devices-per-node=0" 2>&1 | FileCheck %s --check-prefix=PERNODE
// RUN: not pipewave-opt %s -split-input-file --sched-simulate="entry=train" 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not pipewave-opt %s -split-input-file --sched-simulate="trace=%t.missing-dir/t.json" 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: sed 's/"matmul"/"matmuls"/' %S/Inputs/sim-calibrated-device.json > %t.broken.json
// RUN: not pipewave-opt %s -split-input-file --sched-simulate="device=%t.broken.json" 2>&1 | FileCheck %s --check-prefix=CALIBRATION
// RUN: rm -rf %t.cache && mkdir -p %t.cache/devices && cp %t.broken.json %t.cache/devices/bad.json
// RUN: env PIPEWAVE_CACHE_DIR=%t.cache not pipewave-opt %s -split-input-file --sched-simulate="device=bad" 2>&1 | FileCheck %s --check-prefix=CACHED

// DEVICE: error: sched-simulate: unknown device 'tpu' (cpu, v100, a100, h100, h200, a calibrated device or a .json device file)
// MEMORY: error: sched-simulate: memory= expects a size such as 16GiB, got 'lots'
// PERNODE: error: sched-simulate: devices-per-node must be at least 1, got 0
// ENTRY: error: sched-simulate: entry function '@train' with a body of one block not found (set the pass option entry=NAME)
// WRITE: error: sched-simulate: cannot write the trace '{{.*}}missing-dir/t.json':
// CALIBRATION: error: sched-simulate: cannot read device file '{{.*}}.broken.json': {{.*}}.broken.json: calibration: missing array 'matmul'
// CACHED: error: sched-simulate: cannot read calibrated device 'bad': {{.*}}devices/bad.json: calibration: missing array 'matmul'

// expected-error@+1 {{sched-simulate: no sched.program to simulate; run pipe-schedule first}}
module {
  func.func @main() {
    return
  }
}

// -----

// The program's stage count must be the module's.
func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// expected-error@+1 {{sched-simulate: the program has 2 stages but '@main' calls 1 stage functions}}
sched.program "gpipe" stages 2 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.send act stage 0 mb 0 to 1 tag 0
  }
  sched.rank 1 stages [1] {
    sched.recv act stage 1 mb 0 from 0 tag 0
    sched.compute F stage 1 mb 0
  }
}

// -----

// A program that does not verify cannot be simulated.
func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<f32> attributes {pipe.stage = 0 : i64} {
  %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<f32> {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// expected-error@+1 {{sched-simulate: invalid program: rank 0: stage 0 microbatch 0 has no backward (B or I+W)}}
sched.program "gpipe" stages 1 microbatches 1 {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
    sched.optimizer stage 0
  }
}

// -----

// Operations without a cost rule count as free, with a warning.
func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  %c = arith.constant 1.0 : f32
  %t = tensor.splat %c : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
// expected-warning@+1 {{sched-simulate: 1 operation(s) have no cost rule and count as free (first: 'tensor.splat')}}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// expected-remark@+1 {{sched-simulate: "gpipe", 1 stages on 1 ranks, 1 microbatches, forward only}}
sched.program "gpipe" stages 1 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
  }
}

// -----

// pipe.replicas needs one entry per stage ...
func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
// expected-error@+1 {{sched-simulate: pipe.replicas has 2 entries but the program has 1 stages}}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> attributes {pipe.replicas = array<i64: 2, 2>} {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
sched.program "gpipe" stages 1 microbatches 1 forward_only {
  sched.rank 0 stages [0] {
    sched.compute F stage 0 mb 0
  }
}

// -----

// ... and ranks that hold one stage each.
func.func private @main_stage0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
func.func private @main_stage1(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {pipe.stage = 1 : i64} {
  %t = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
// expected-warning@+1 {{sched-simulate: pipe.replicas ignored: the ranks of "interleaved" do not hold one stage each}}
func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> attributes {pipe.replicas = array<i64: 2, 2>} {
  %0 = call @main_stage0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = call @main_stage1(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
// expected-remark@+1 {{sched-simulate: "interleaved", 2 stages on 1 ranks, 1 microbatches, forward only}}
sched.program "interleaved" stages 2 microbatches 1 forward_only {
  sched.rank 0 stages [0, 1] {
    sched.compute F stage 0 mb 0
    sched.compute F stage 1 mb 0
  }
}
