// RUN: pipewave-opt %s --pipe-microbatch | FileCheck %s
// RUN: pipewave-opt %s --pipe-microbatch=microbatches=2 | FileCheck %s --check-prefix=OPTION

// Without the option, the count pipe-plan wrote on the entry
// (pipe.microbatches) applies; the option overrides it.

// CHECK-LABEL: func.func private @main_stage0(
// CHECK-SAME:      tensor<2x4xf32>
// CHECK-LABEL: func.func @main(
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>

// OPTION-LABEL: func.func private @main_stage0(
// OPTION-SAME:      tensor<4x4xf32>
func.func private @main_stage0(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> attributes {pipe.stage = 0 : i64} {
  %t = tosa.tanh %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
func.func @main(%x: tensor<8x4xf32> {pipe.name = "x"}) -> tensor<8x4xf32> attributes {pipe.microbatches = 4 : i64} {
  %0 = call @main_stage0(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
