// Option errors of pipe-schedule on a training step of three stages with
// a batch of 6 (one RUN line per error).

// RUN: not pipewave-opt %s --pipe-schedule="schedule=interleaved chunks=2 microbatches=2" 2>&1 | FileCheck %s --check-prefix=CHUNKS
// CHUNKS: error: pipe-schedule: schedule=interleaved chunks=2 needs a stage count that is a multiple of chunks (2 stages per rank), but the module has 3 stages

// RUN: not pipewave-opt %s --pipe-schedule="schedule=hanayo microbatches=2" 2>&1 | FileCheck %s --check-prefix=HANAYO
// HANAYO: error: pipe-schedule: schedule=hanayo waves=1 needs a stage count that is a multiple of 2 x waves (2 stages per rank), but the module has 3 stages

// RUN: not pipewave-opt %s --pipe-schedule="schedule=zb-v microbatches=2" 2>&1 | FileCheck %s --check-prefix=ZBV
// ZBV: error: pipe-schedule: schedule=zb-v needs an even stage count (2 stages per rank), but the module has 3 stages


// RUN: not pipewave-opt %s --pipe-schedule="schedule=gpipe chunks=2" 2>&1 | FileCheck %s --check-prefix=CHUNKSFOR
// CHUNKSFOR: error: pipe-schedule: chunks=2 only applies to schedule=interleaved

// RUN: not pipewave-opt %s --pipe-schedule="schedule=interleaved waves=2" 2>&1 | FileCheck %s --check-prefix=WAVESFOR
// WAVESFOR: error: pipe-schedule: waves=2 only applies to schedule=hanayo

// RUN: not pipewave-opt %s --pipe-schedule="schedule=interleaved chunks=-1" 2>&1 | FileCheck %s --check-prefix=NEGCHUNKS
// NEGCHUNKS: error: pipe-schedule: chunks and waves must be at least 1

// RUN: not pipewave-opt %s --pipe-schedule="schedule=1f1b file=x.txt" 2>&1 | FileCheck %s --check-prefix=FILEFOR
// FILEFOR: error: pipe-schedule: file=x.txt only applies to schedule=file

// RUN: not pipewave-opt %s --pipe-schedule="schedule=file" 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: pipe-schedule: schedule=file needs file=PATH (an action list, see docs/schedule-format.md)

// RUN: not pipewave-opt %s --pipe-schedule="schedule=auto device=tpu" 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: pipe-schedule: unknown device 'tpu' (cpu, v100, a100, h100, h200, a calibrated device or a .json device file)

// RUN: not pipewave-opt %s --pipe-schedule="schedule=auto device=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=DEVFILE
// DEVFILE: error: pipe-schedule: cannot read device file '{{.*}}missing.json'

// RUN: not pipewave-opt %s --pipe-schedule="schedule=auto memory=lots" 2>&1 | FileCheck %s --check-prefix=MEMORY
// MEMORY: error: pipe-schedule: memory= expects a size such as 16GiB, got 'lots'

// RUN: not pipewave-opt %s --pipe-schedule="schedule=auto max-microbatches=0" 2>&1 | FileCheck %s --check-prefix=MAXMB
// MAXMB: error: pipe-schedule: max-microbatches and devices-per-node must be at least 1

// Generator errors repeat the option values, the stage and the rank counts.
// RUN: not pipewave-opt %s --pipe-schedule="schedule=interleaved chunks=1 microbatches=2" 2>&1 | FileCheck %s --check-prefix=GENERATOR
// GENERATOR: error: pipe-schedule: schedule=interleaved chunks=1 microbatches=2 (3 stages on 3 ranks): interleaved-1f1b: the number of microbatches (2) must be a multiple of the number of ranks (3)

func.func private @main_stage0(%x: tensor<6x8xf32>) -> tensor<6x8xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<6x8xf32>) -> tensor<6x8xf32>
  return %t : tensor<6x8xf32>
}
func.func private @main_stage1(%x: tensor<6x8xf32>) -> tensor<6x8xf32> attributes {pipe.stage = 1 : i64} {
  %t = tosa.tanh %x : (tensor<6x8xf32>) -> tensor<6x8xf32>
  return %t : tensor<6x8xf32>
}
func.func private @main_stage2(%t: tensor<6x8xf32>) -> tensor<f32> attributes {pipe.stage = 2 : i64} {
  %s = tosa.reduce_sum %t {axis = 0 : i32} : (tensor<6x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<6x8xf32> {pipe.name = "x"}) -> tensor<f32> {
  %0 = call @main_stage0(%x) : (tensor<6x8xf32>) -> tensor<6x8xf32>
  %1 = call @main_stage1(%0) : (tensor<6x8xf32>) -> tensor<6x8xf32>
  %2 = call @main_stage2(%1) : (tensor<6x8xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}
