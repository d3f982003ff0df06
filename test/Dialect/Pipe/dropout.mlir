// pipe.dropout: round trip (also through the generic form) and
// pipe-lower-dropout, which makes one linalg.generic reading the counter's
// [seed, step, first sample] through constant indexing maps.
// RUN: pipewave-opt %s | FileCheck %s
// RUN: pipewave-opt %s -mlir-print-op-generic | pipewave-opt | FileCheck %s
// RUN: pipewave-opt %s --pass-pipeline='builtin.module(func.func(pipe-lower-dropout))' | FileCheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func @dropout
//  CHECK-SAME:   %[[C:[a-z0-9]+]]: tensor<4x3xi64> {pipe.counter, pipe.name = "dropout.counter"}
//       CHECK:   pipe.dropout %{{.*}}, %[[C]] ratio 2.500000e-01 stream 3 : tensor<4x8xf32>, tensor<4x3xi64>

// LOWER-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// LOWER-DAG: #[[SEED:.*]] = affine_map<(d0, d1) -> (0, 0)>
// LOWER-DAG: #[[STEP:.*]] = affine_map<(d0, d1) -> (0, 1)>
// LOWER-DAG: #[[SAMPLE:.*]] = affine_map<(d0, d1) -> (0, 2)>
// LOWER-LABEL: func.func @dropout
//   LOWER-NOT: pipe.dropout
//       LOWER: linalg.generic {indexing_maps = [#[[ID]], #[[SEED]], #[[STEP]], #[[SAMPLE]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
//   LOWER-DAG:   linalg.index 0
//   LOWER-DAG:   linalg.index 1
//       LOWER:   arith.cmpi uge
//       LOWER:   arith.select
func.func @dropout(%x: tensor<4x8xf32>, %c: tensor<4x3xi64> {pipe.counter, pipe.name = "dropout.counter"}) -> tensor<4x8xf32> {
  %y = pipe.dropout %x, %c ratio 0.25 stream 3 : tensor<4x8xf32>, tensor<4x3xi64>
  return %y : tensor<4x8xf32>
}
