// Elementwise stablehlo/chlo operations become their TOSA namesakes or short
// compositions that pipe-autodiff differentiates.
// RUN: pipewave-opt %s --stablehlo-to-tosa | FileCheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-DAG: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
  // CHECK: tosa.abs %arg0
  // CHECK: tosa.cos %arg0
  // CHECK: tosa.exp %arg0
  // CHECK: tosa.log %arg0
  // CHECK: tosa.sigmoid %arg0
  // CHECK: tosa.rsqrt %arg0
  // CHECK: tosa.sin %arg0
  // CHECK: tosa.tanh %arg0
  // CHECK: tosa.erf %arg0
  // CHECK: tosa.negate %arg0, %[[ZP]], %[[ZP]]
  // CHECK: tosa.mul %arg0, %arg0
  %0 = stablehlo.abs %x : tensor<4xf32>
  %1 = stablehlo.cosine %x : tensor<4xf32>
  %2 = stablehlo.exponential %x : tensor<4xf32>
  %3 = stablehlo.log %x : tensor<4xf32>
  %4 = stablehlo.logistic %x : tensor<4xf32>
  %5 = stablehlo.rsqrt %x : tensor<4xf32>
  %6 = stablehlo.sine %x : tensor<4xf32>
  %7 = stablehlo.tanh %x : tensor<4xf32>
  %8 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  %9 = stablehlo.negate %x : tensor<4xf32>
  %10 = chlo.square %x : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @composed
func.func @composed(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-DAG: %[[ONE:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1xf32>}>
  // CHECK-DAG: %[[HALF:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1xf32>}>
  // sqrt(x) = pow(x, 0.5)
  // CHECK: tosa.pow %arg0, %[[HALF]]
  // exp(x) - 1
  // CHECK: %[[E:.*]] = tosa.exp %arg0
  // CHECK: tosa.sub %[[E]], %[[ONE]] : (tensor<4xf32>, tensor<1xf32>)
  // log(x + 1)
  // CHECK: %[[P:.*]] = tosa.add %arg0, %[[ONE]] : (tensor<4xf32>, tensor<1xf32>)
  // CHECK: tosa.log %[[P]]
  %0 = stablehlo.sqrt %x : tensor<4xf32>
  %1 = stablehlo.exponential_minus_one %x : tensor<4xf32>
  %2 = stablehlo.log_plus_one %x : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  // CHECK: tosa.add %arg0, %arg1
  // CHECK: tosa.sub %arg0, %arg1
  // CHECK: tosa.mul %arg0, %arg1, %{{.*}} : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>)
  // CHECK: %[[R:.*]] = tosa.reciprocal %arg1
  // CHECK: tosa.mul %arg0, %[[R]]
  // CHECK: tosa.maximum %arg0, %arg1
  // CHECK: tosa.minimum %arg0, %arg1
  // CHECK: tosa.pow %arg0, %arg1
  // CHECK: tosa.intdiv %arg2, %arg2
  %0 = stablehlo.add %x, %y : tensor<4xf32>
  %1 = stablehlo.subtract %x, %y : tensor<4xf32>
  %2 = stablehlo.multiply %x, %y : tensor<4xf32>
  %3 = stablehlo.divide %x, %y : tensor<4xf32>
  %4 = stablehlo.maximum %x, %y : tensor<4xf32>
  %5 = stablehlo.minimum %x, %y : tensor<4xf32>
  %6 = stablehlo.power %x, %y : tensor<4xf32>
  %7 = stablehlo.divide %i, %i : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @logical
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>) {
  // CHECK: tosa.logical_and %arg0, %arg1
  // CHECK: tosa.logical_or %arg0, %arg1
  // CHECK: tosa.logical_not %arg0
  // CHECK: tosa.bitwise_and %arg2, %arg2
  %0 = stablehlo.and %a, %b : tensor<4xi1>
  %1 = stablehlo.or %a, %b : tensor<4xi1>
  %2 = stablehlo.not %a : tensor<4xi1>
  %3 = stablehlo.and %i, %i : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>
}

// CHECK-LABEL: func.func @compare
func.func @compare(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  // CHECK: tosa.equal %arg0, %arg1
  // CHECK: %[[EQ:.*]] = tosa.equal %arg0, %arg1
  // CHECK: tosa.logical_not %[[EQ]]
  // CHECK: tosa.greater %arg0, %arg1
  // CHECK: tosa.greater_equal %arg0, %arg1
  // LT and LE swap the operands.
  // CHECK: tosa.greater %arg1, %arg0
  // CHECK: tosa.greater_equal %arg1, %arg0
  %0 = stablehlo.compare EQ, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.compare NE, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.compare GT, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = stablehlo.compare GE, %x, %y, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = stablehlo.compare LT, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %5 = stablehlo.compare LE, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @select_clamp_convert
func.func @select_clamp_convert(%p: tensor<i1>, %q: tensor<2x4xi1>, %x: tensor<2x4xf32>, %y: tensor<2x4xf32>, %lo: tensor<f32>, %i: tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  // A scalar predicate is reshaped to [1, 1] and broadcast by TOSA.
  // CHECK: %[[P:.*]] = tosa.reshape %arg0, %{{.*}} : (tensor<i1>, !tosa.shape<2>) -> tensor<1x1xi1>
  // CHECK: tosa.select %[[P]], %arg2, %arg3 : (tensor<1x1xi1>, tensor<2x4xf32>, tensor<2x4xf32>)
  // CHECK: tosa.select %arg1, %arg2, %arg3 : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>)
  // clamp(lo, x, hi) = minimum(maximum(x, lo), hi)
  // CHECK: %[[LO:.*]] = tosa.reshape %arg4
  // CHECK: %[[M:.*]] = tosa.maximum %arg2, %[[LO]]
  // CHECK: tosa.minimum %[[M]], %arg3
  // CHECK: tosa.cast %arg5 : (tensor<2x4xi32>) -> tensor<2x4xf32>
  // CHECK: tosa.identity %arg2
  %0 = stablehlo.select %p, %x, %y : tensor<i1>, tensor<2x4xf32>
  %1 = stablehlo.select %q, %x, %y : tensor<2x4xi1>, tensor<2x4xf32>
  %2 = stablehlo.clamp %lo, %x, %y : (tensor<f32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = stablehlo.convert %i : (tensor<2x4xi32>) -> tensor<2x4xf32>
  %4 = stablehlo.convert %x : tensor<2x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
