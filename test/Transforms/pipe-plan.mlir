// pipe-plan on the MLP example (batch 16, 28 costed operations) on 2 nodes
// of 4 devices of Inputs/plan-device.json: 1 GFLOP/s, fast links, 1 MB of
// memory, so neither one device nor plain data parallelism fits and the
// planner pipelines with data-parallel stages.

// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-plan="devices-per-node=4 nodes=2 device=%S/Inputs/plan-device.json" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=ATTRS < %t.mlir
// RUN: pipewave-opt %t.mlir --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule --sched-verify | FileCheck %s --check-prefix=PIPELINE
// RUN: pipewave-opt %t.mlir --pipe-partition="strategy=manual" --pipe-outline-stages | FileCheck %s --check-prefix=MANUAL

// REMARK:      remark: pipe-plan: 28 layers (the costed operations of '@main' on slow); global batch 16 on 2 x 4 slow, 977 KiB per device
// REMARK-NEXT: best plan: 2 stages, 4 microbatches of 4, fresh-first placement, 8 devices
// REMARK-NEXT:   stage layers    first .. last layer            repl devices
// REMARK-NEXT:   0     0-9       tosa.matmul#0 .. tosa.matmul#9    4 0-3
// REMARK-NEXT:   1     10-27     tosa.add#10 .. tosa.mul#27        4 4-7
// REMARK:        simulated: step 1.60 ms, bubble 20.7%, peak memory 912 KiB per device
// REMARK:      single device: does not fit
// REMARK-NEXT: data parallel: does not fit
// REMARK-NEXT: best candidates (layers x replicas per stage):
// REMARK-NEXT:   1. fresh-first   M=4   {{.*}} 10L x4 | 18L x4
// REMARK:      wrote pipe.stage on 45 operations, pipe.replicas = [4, 4] and pipe.microbatches = 4 on '@main'

// The fourth matmul (layer 9) ends stage 0; its bias add starts stage 1.
// ATTRS-LABEL: func.func @main(
// ATTRS-SAME:    attributes {pipe.microbatches = 4 : i64, pipe.replicas = array<i64: 4, 4>}
// ATTRS:         tosa.matmul %{{.*}}, %arg2, {{.*}}pipe.stage = 0 : i64
// ATTRS:         tosa.matmul %{{.*}}, %arg8, {{.*}}pipe.stage = 0 : i64
// ATTRS-NEXT:    tosa.reshape {{.*}}pipe.stage = 0 : i64
// ATTRS-NEXT:    tosa.add %{{.*}}, %arg9 {pipe.stage = 1 : i64}
// ATTRS:         return

// pipe-partition keeps the planned cut; pipe-schedule takes the planned
// microbatch count and replicas: 4 copies of the 2-stage pipeline on 8
// ranks, each stage all-reducing among its replicas.
// PIPELINE: func.func private @main_stage1
// PIPELINE: sched.program "1f1b" stages 2 microbatches 4 {
// PIPELINE: sched.rank 1 stages [1] {
// PIPELINE: sched.allreduce stage 1 ranks [1, 3, 5, 7]
// PIPELINE: sched.rank 6 stages [0] {
// PIPELINE: sched.allreduce stage 0 ranks [0, 2, 4, 6]
// PIPELINE: sched.rank 7 stages [1] {
// PIPELINE-NOT: sched.rank 8

// On a program without replicas (replicas=1) sched-simulate runs every
// stage on its planned replicas (rank r stands for a group of devices): the
// planner's own simulation.
// RUN: pipewave-opt %t.mlir --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule=replicas=1 --sched-simulate="device=%S/Inputs/plan-device.json devices-per-node=4 report=-" -o /dev/null | FileCheck %s --check-prefix=SIM
// SIM:      sched-simulate: "1f1b", 2 stages on 2 ranks (8 devices), 4 microbatches, on slow (977 KiB per device)
// SIM-NEXT: step time: 0.00160054 s (1.60 ms)
// SIM-NEXT: bubble fraction: 0.2075

// MANUAL: func.func private @main_stage0
// MANUAL: func.func private @main_stage1
// MANUAL-NOT: @main_stage2

// With a profile the planner only reports: the IR is left alone.
// RUN: pipewave-opt %pipewave_src/examples/mlp.mlir --pipe-plan="profile=%pipewave_src/data/dapple-profiles/vgg-19-pbs-32.txt devices-per-node=8 nodes=2 memory=16GiB" 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE:      remark: pipe-plan: profile vgg-19-pbs-32, 26 layers at batch 32; global batch 128 on 2 x 8 v100, 16.0 GiB per device
// PROFILE-NEXT: best plan: 4 stages, 16 microbatches of 8, scatter-first placement, 16 devices
// PROFILE:      single device: step
// PROFILE:      best candidates (layers x replicas per stage):
// PROFILE-NEXT:   1. scatter-first M=16  {{.*}} 9L x8 | 5L x4 | 5L x3 | 7L x1
// PROFILE-NOT:  pipe.stage
// PROFILE-NOT:  pipe.replicas
