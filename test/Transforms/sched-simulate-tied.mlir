// RUN: pipewave-opt %s --pipe-partition --pipe-outline-stages --pipe-insert-comm --pipe-schedule="schedule=gpipe microbatches=2" --sched-simulate="device=%S/Inputs/sim-unit-device.json report=- trace=%t.json" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s < %t.json

// The tied all-reduce is costed as an all-reduce of the parameter's bytes
// among the holders' devices, with the all-reduce cost of the network
// model: 2 (n - 1) / n x bytes / link bandwidth. 'w' is 4x8xf32, 128 B, on
// two devices linked at 1 GB/s (the unit device of
// Inputs/sim-unit-device.json): 128 ns, the same on both ranks, starting
// when the later of them reaches it.

// CHECK-DAG: {"name":"tied w","cat":"allreduce","ph":"X","pid":0,"tid":0,"ts":0.{{64(8|79)[0-9]*}},"dur":0.{{12(8|79)[0-9]*}},
// CHECK-DAG: {"name":"tied w","cat":"allreduce","ph":"X","pid":1,"tid":0,"ts":0.{{64(8|79)[0-9]*}},"dur":0.{{12(8|79)[0-9]*}},

// Rank 0's backward (derived before pipe-autodiff) differentiates only 'w':
// the add passes the gradient through unchanged (w has the add's shape:
// nothing to compute), and the tanh's costs 3 FLOPs an element (96 a
// batch), 48 ns a microbatch at 1 GFLOP/s. Rank 1's is its two reductions
// (40 FLOPs a batch, 20 ns a microbatch), so the second microbatch's
// gradient arrives at 600 ns and rank 0's last backward ends at 648 ns; the
// step ends after the tied all-reduce (128 ns), the runtime's agreement on
// non-finite values (an all-reduce of 8 B: 8 ns) and the optimizer step
// (4 ns): 788 ns.
// REPORT: step time: 7.88e-07 s

func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"},
                %w: tensor<4x8xf32> {pipe.name = "w", pipe.param}) -> tensor<f32> {
  %a = tosa.add %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = tosa.tanh %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  pipe.split
  %b = tosa.add %t, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s2 = tosa.reduce_sum %s {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %shape = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %l = tosa.reshape %s2, %shape : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %l : tensor<f32>
}
