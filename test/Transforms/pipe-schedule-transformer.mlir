// Every schedule through pipe-train on the transformer example (batch 4),
// each program checked by sched-verify: 4 ranks throughout, with 8 stages
// for the schedules that put two on each rank.

// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=gpipe microbatches=4})' | FileCheck %s --check-prefix=GPIPE
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=4})' | FileCheck %s --check-prefix=ONEFONEB
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=8 schedule=interleaved chunks=2 microbatches=4})' | FileCheck %s --check-prefix=INTERLEAVED
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=8 schedule=hanayo waves=1 microbatches=4})' | FileCheck %s --check-prefix=HANAYO
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=zb-h1 microbatches=4})' | FileCheck %s --check-prefix=ZBH1
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=8 schedule=zb-v microbatches=4})' | FileCheck %s --check-prefix=ZBV
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=8 schedule=zb-v microbatches=4},sched-export{file=%t.zbv.txt})' -o /dev/null
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=8 schedule=file file=%t.zbv.txt})' | FileCheck %s --check-prefix=ZBV
// RUN: pipewave-opt %pipewave_src/examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=8 schedule=auto device=a100 memory=16GiB})' 2>&1 | FileCheck %s --check-prefix=AUTO

// GPIPE-LABEL: sched.program "gpipe" stages 4 microbatches 4 {
// GPIPE:         sched.rank 3 stages [3] {

// ONEFONEB-LABEL: sched.program "1f1b" stages 4 microbatches 4 {
// ONEFONEB:         sched.rank 3 stages [3] {

// INTERLEAVED-LABEL: sched.program "interleaved" stages 8 microbatches 4 {
// INTERLEAVED:         sched.rank 0 stages [0, 4] {
// INTERLEAVED:         sched.rank 3 stages [3, 7] {
// INTERLEAVED-NOT:     sched.rank 4

// HANAYO-LABEL: sched.program "hanayo" stages 8 microbatches 4 {
// HANAYO:         sched.rank 0 stages [0, 7] {
// HANAYO:         sched.rank 3 stages [3, 4] {
// HANAYO-NOT:     sched.rank 4

// ZBH1-LABEL: sched.program "zb-h1" stages 4 microbatches 4 {
// ZBH1:         sched.compute I stage 0 mb 0
// ZBH1:         sched.compute W stage 0 mb 0
// ZBH1:         sched.rank 3 stages [3] {

// ZBV-LABEL: sched.program "zb-v" stages 8 microbatches 4 {
// ZBV:         sched.rank 0 stages [0, 7] {
// ZBV:         sched.rank 3 stages [3, 4] {
// ZBV-NOT:     sched.rank 4

// AUTO:      remark: pipe-schedule: schedule=auto chose
// AUTO-NEXT:   {{[0-9]+}} candidates simulated on a100 with 16.0 GiB per device
// AUTO-NEXT:   8 stages, fixed by the partition; microbatches: the divisors of the batch 4 up to 64
// AUTO:        * {{.*}} yes
// AUTO:      sched.program
