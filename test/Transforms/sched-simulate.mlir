// sched-simulate on a model small enough to time by hand, on the test device
// of Inputs/sim-unit-device.json: 1 GFLOP/s, 224 GB/s of memory bandwidth,
// 1 GB/s links without latency, 1000 B of memory.

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-unit-device.json report=- trace=%t.json svg=%t.svg" -o /dev/null | FileCheck %s
// RUN: FileCheck %s --check-prefix=TRACE < %t.json
// RUN: FileCheck %s --check-prefix=SVG < %t.svg
// RUN: FileCheck %s --check-prefix=TITLES < %t.svg
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-unit-device.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-unit-device.json memory=400B report=%t.report" -o /dev/null
// RUN: FileCheck %s --check-prefix=SMALL < %t.report
// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="report=-" -o /dev/null | FileCheck %s --check-prefix=H100

// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-microbatch="microbatches=2" --pipe-autodiff="split=true" --pipe-insert-comm --pipe-schedule="schedule=zb-h1" --sched-simulate="device=%S/Inputs/sim-unit-device.json report=-" -o /dev/null | FileCheck %s --check-prefix=AUTODIFF

// Stage 0 is the tanh of a 4x8 batch: 320 FLOPs (10 per element), 320 ns
// for the batch, F = 160 ns per microbatch of 2. Its only input is data and
// it has no parameter: its backward differentiates nothing (B = I = W = 0,
// as the generated one in the AUTODIFF run below). Stage 1 is an add (32
// FLOPs) and two reductions (32 + 8): F = 72 / 2 = 36 ns. Its backward,
// derived before pipe-autodiff as the gradient rules make it: the add
// passes dY to the activation (nothing to compute) and sums it over the
// batch for the broadcast weight (a 32-FLOP reduction, W = 16 ns); each
// reduction costs its forward once (I): I = (32 + 8) / 2 = 20 ns, B =
// 36 ns. Every op is compute bound (at most 288 bytes, 1.3 ns).
// The activation sent per microbatch is 2x8xf32 = 64 B, 64 ns on the link.
// The optimizer moves 7 x 32 parameter bytes: 1 ns.
//
// GPipe, M = 2:
//   rank 0: F0 [0, 160], F1 [160, 320]
//   act 0 arrives 224, act 1 arrives 384
//   rank 1: F0 [224, 260], F1 [384, 420], B0 [420, 456], B1 [456, 492]
//   grad 0 on the link [456, 520]; grad 1 waits for it: [520, 584]
//   rank 0: B0 at 520, B1 at 584 (both empty)
//   the runtime's agreement on non-finite values once every rank is done
//   and every message arrived: an all-reduce of 8 B, [584, 592]
//   rank 1: opt [592, 593]
// Step 593 ns; busy 320 + 144 ns: bubble 1 - 464 / 1186 = 0.6088.
//
// Memory. Stage 0 stashes its input and the tanh: 2 x 64 B per microbatch;
// at the peak both microbatches (256 B) and one 64 B message. Stage 1
// stashes its 64 B input, the add (64 B), the reductions (16 + 2 B): 146 B
// per microbatch, both (292 B) while B0 waits, plus the weights (32 B),
// their gradients (32 B) and the Adam moments (64 B): 420 B.

// CHECK:      sched-simulate: "gpipe", 2 stages on 2 ranks, 2 microbatches, on unit (1000 B per device)
// CHECK-NEXT: step time: 5.93e-07 s (0.59 us)
// CHECK-NEXT: bubble fraction: 0.6088
// CHECK-NEXT: memory: every rank fits
// CHECK-NEXT: backward: derived from the forward ops as pipe-autodiff would generate it (no pipe.bwd functions)
// CHECK-NEXT: per microbatch (seconds, bytes):
// CHECK-NEXT:   stage function             F            B            I            W            optimizer    send         params       stash
// CHECK-NEXT:   0     main_stage0          1.6e-07      0            0            0            0            64           0            128
// CHECK-NEXT:   1     main_stage1          3.6e-08      3.6e-08      2e-08        1.6e-08      1e-09        0            32           146
// CHECK-NEXT: peak memory per device (bytes):
// CHECK-NEXT:   rank  stages   busy         weights      gradients    optimizer    stash        buffers      total                     fits
// CHECK-NEXT:   0     0        3.2e-07      0            0            0            256          64           320          320 B        yes
// CHECK-NEXT:   1     1        1.44e-07     32           32           64           292          0            420          420 B        yes

// The trace is one JSON object with a list of events.
// TRACE:      {"displayTimeUnit":"ms","traceEvents":[
// TRACE-DAG:  {"name":"process_name","ph":"M","pid":0,"args":{"name":"rank 0 (device 0)"}},
// TRACE-DAG:  {"name":"process_name","ph":"M","pid":1,"args":{"name":"rank 1 (device 1)"}},
// TRACE-DAG:  {"name":"F s0 mb0","cat":"compute","ph":"X","pid":0,"tid":0,"ts":0,"dur":0.16,
// TRACE-DAG:  {"name":"F s0 mb1","cat":"compute","ph":"X","pid":0,"tid":0,"ts":0.16,"dur":0.16,
// TRACE-DAG:  {"name":"B s0 mb0","cat":"compute","ph":"X","pid":0,"tid":0,"ts":0.52,"dur":0,
// TRACE-DAG:  {"name":"F s1 mb0","cat":"compute","ph":"X","pid":1,"tid":0,"ts":0.224,
// TRACE-DAG:  {"name":"send act s0 mb0 -> r1","cat":"comm","ph":"X","pid":0,"tid":1,"ts":0.16,
// TRACE-DAG:  {"name":"send grad s1 mb1 -> r0","cat":"comm","ph":"X","pid":1,"tid":1,"ts":0.52{{[0-9]*}},
// TRACE:      ]}
// TRACE-NOT:  {{.}}

// One rect per F/B action, with its times in the title.
// SVG:         <?xml version="1.0" encoding="UTF-8"?>
// SVG-NEXT:    <svg xmlns="http://www.w3.org/2000/svg"
// SVG:         gpipe, 2 stages, 2 microbatches on unit
// SVG-COUNT-8: <rect class="{{[FB]}}"
// SVG-NOT:     <rect
// SVG:         </svg>
// SVG-NOT:     {{.}}
// TITLES-DAG:  <title>F s0 mb0: 0.00 us - 0.16 us</title>
// TITLES-DAG:  <title>B s0 mb1: 0.58 us - 0.58 us</title>

// Without report= the report is a remark on the program.
// REMARK:      remark: sched-simulate: "gpipe", 2 stages on 2 ranks
// REMARK-NEXT: step time: 5.93e-07 s (0.59 us)

// With 400 B per device the second rank does not fit.
// SMALL: sched-simulate: "gpipe", 2 stages on 2 ranks, 2 microbatches, on unit (400 B per device)
// SMALL: memory: some rank does not fit
// SMALL: 0     0        3.2e-07      0            0            0            256          64           320          320 B        yes
// SMALL: 1     1        1.44e-07     32           32           64           292          0            420          420 B        no

// After pipe-microbatch and pipe-autodiff the stage functions compute one
// microbatch and the backward is costed from the generated functions:
// stage 0 has nothing to differentiate (its only input is data), stage 1's
// weight gradient is the reduction of the 2x8 cotangent (16 ns).
// AUTODIFF:      sched-simulate: "zb-h1", 2 stages on 2 ranks, 2 microbatches, on unit (1000 B per device)
// AUTODIFF:      backward: the pipe.bwd, pipe.bwd_input and pipe.bwd_weight functions
// AUTODIFF:      0     main_stage0          1.6e-07      0            0            0            0            64
// AUTODIFF-NEXT: 1     main_stage1          {{[0-9.e-]+}} {{[0-9.e-]+}} {{[0-9.e-]+}} 1.6e-08

// The default device is an h100; the tanh is bound by its 3.35 TB/s of
// memory bandwidth (256 B / 2 per microbatch), every message pays a
// latency of 5 us and the agreement's all-reduce two (10 us).
// H100: sched-simulate: "gpipe", 2 stages on 2 ranks, 2 microbatches, on h100
// H100: step time: 2.00008e-05 s (20.0 us)
// H100: 0     main_stage0          3.8209e-11

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<1x8xf32> {pipe.param, pipe.name = "w"}) -> tensor<f32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.add %a, %w : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
