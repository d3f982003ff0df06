// schedule=auto on a calibrated CPU device that knows its cores
// (Inputs/sim-calibrated-device.json, 2 cores): candidates with more ranks
// than cores rank after every candidate with a core per rank, whatever
// their simulated step time, and are marked. The simulation stretches
// their durations by ranks / cores, but oversubscribed ranks also wait for
// time slices at every message, which it does not model.

// With 3 cores the 4-rank candidates simulate faster (172 us, stretched by
// 4/3) than the 2-rank ones with full recompute (199-235 us), yet rank last.
// RUN: sed 's/"cores": 2/"cores": 3/' %S/Inputs/sim-calibrated-device.json > %t.three-cores.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%t.three-cores.json microbatches=2" --sched-verify 2>&1 | FileCheck %s --check-prefix=THREE

// With 8 cores nothing is oversubscribed: 1F1B on 4 ranks wins.
// RUN: sed 's/"cores": 2/"cores": 8/' %S/Inputs/sim-calibrated-device.json > %t.eight-cores.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%t.eight-cores.json microbatches=2" --sched-verify 2>&1 | FileCheck %s --check-prefix=EIGHT

// With 1 core every candidate is oversubscribed: the fastest still wins.
// RUN: sed 's/"cores": 2/"cores": 1/' %S/Inputs/sim-calibrated-device.json > %t.one-core.json
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=auto device=%t.one-core.json microbatches=2" --sched-verify 2>&1 | FileCheck %s --check-prefix=ONE

// THREE:      remark: pipe-schedule: schedule=auto chose interleaved chunks=2 microbatches=2
// THREE-NEXT:   12 candidates simulated on calibrated-unit with 954 MiB per device, 12 fit; the fastest that fits wins
// THREE-NEXT:   4 stages, fixed by the partition; microbatches=2 (the option)
// THREE-NEXT:   6 candidate(s) with more ranks than the 3 cores of calibrated-unit rank last (oversubscribed: the ranks would wait for time slices, which the simulation does not model)
// THREE-NEXT:   recompute: none
// THREE-NEXT:     schedule                   M recompute ranks    step time   bubble  peak memory  fits
// THREE-NEXT:   * interleaved chunks=2       2 none          2       139 us
// THREE-NEXT:     hanayo waves=1             2 none          2       139 us
// THREE-NEXT:     zb-v                       2 none          2       169 us
// THREE-NEXT:     interleaved chunks=2       2 full          2       199 us
// THREE-NEXT:     hanayo waves=1             2 full          2       204 us
// THREE-NEXT:     zb-v                       2 full          2       235 us   {{.*}}   yes{{$}}
// THREE-NEXT:     1f1b                       2 none          4       172 us   {{.*}} yes, oversubscribed
// THREE:        zb-h1                      2 full          4       262 us   {{.*}} yes, oversubscribed
// THREE:      sched.program "interleaved"

// EIGHT:      remark: pipe-schedule: schedule=auto chose 1f1b microbatches=2
// EIGHT-NOT:  oversubscribed
// EIGHT:      sched.program "1f1b"

// ONE:        remark: pipe-schedule: schedule=auto chose interleaved chunks=2 microbatches=2
// ONE:          12 candidate(s) with more ranks than the 1 cores of calibrated-unit rank last
// ONE:        * interleaved chunks=2       2 none          2 {{.*}} yes, oversubscribed
// ONE:        sched.program "interleaved"

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<1x8xf32> {pipe.param, pipe.name = "w"}) -> tensor<f32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.tanh %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %c = tosa.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %d = tosa.add %c, %w : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %d {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
