// Element-wise: (x + y) * exp(x), one fused nest.
func.func @ew(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {pipe.stage = 0 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.mul %s, %e, %shift : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Broadcast: a bias row added to every row.
func.func @bcast(%x: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32>
    attributes {pipe.stage = 1 : i64} {
  %r = tosa.add %x, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Softmax over the last dimension.
func.func @softmax(%x: tensor<4x32xf32>) -> tensor<4x32xf32>
    attributes {pipe.stage = 2 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %d = tosa.sub %x, %m : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %e = tosa.exp %d : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %i = tosa.reciprocal %s : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = tosa.mul %e, %i, %shift : (tensor<4x32xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// Layer norm without affine parameters: (x - mean) * rsqrt(var + eps).
func.func @layernorm(%x: tensor<4x64xf32>) -> tensor<4x64xf32>
    attributes {pipe.stage = 3 : i64} {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.015625> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %mean = tosa.mul %s, %inv, %shift : (tensor<4x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x1xf32>
  %c = tosa.sub %x, %mean : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %sq = tosa.mul %c, %c, %shift : (tensor<4x64xf32>, tensor<4x64xf32>, tensor<1xi8>) -> tensor<4x64xf32>
  %vs = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var = tosa.mul %vs, %inv, %shift : (tensor<4x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x1xf32>
  %ve = tosa.add %var, %eps : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %rs = tosa.rsqrt %ve : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = tosa.mul %c, %rs, %shift : (tensor<4x64xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// Embedding lookup.
func.func @gather(%table: tensor<1x10x8xf32>, %idx: tensor<1x4xi32>) -> tensor<1x4x8xf32>
    attributes {pipe.stage = 4 : i64} {
  %r = tosa.gather %table, %idx : (tensor<1x10x8xf32>, tensor<1x4xi32>) -> tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// Data movement: transpose, reshape, slice, concat.
func.func @movement(%x: tensor<4x6xf32>) -> tensor<5x4xf32>
    attributes {pipe.stage = 5 : i64} {
  %t = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %shape = tosa.const_shape {values = dense<[24]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %flat = tosa.reshape %t, %shape : (tensor<6x4xf32>, !tosa.shape<1>) -> tensor<24xf32>
  %shape2 = tosa.const_shape {values = dense<[6, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %back = tosa.reshape %flat, %shape2 : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  %start = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sl = tosa.slice %back, %start, %size : (tensor<6x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<3x4xf32>
  %start2 = tosa.const_shape {values = dense<[4, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size2 = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sl2 = tosa.slice %back, %start2, %size2 : (tensor<6x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  %r = tosa.concat %sl, %sl2 {axis = 0 : i32} : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// Matmuls: plain, and with the right operand transposed (as autodiff makes).
func.func @matmul(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>, %c: tensor<1x16x8xf32>) -> (tensor<1x4x16xf32>, tensor<1x4x16xf32>)
    attributes {pipe.stage = 6 : i64} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %ct = tosa.transpose %c {perms = array<i32: 0, 2, 1>} : (tensor<1x16x8xf32>) -> tensor<1x8x16xf32>
  %r2 = tosa.matmul %a, %ct, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  return %r, %r2 : tensor<1x4x16xf32>, tensor<1x4x16xf32>
}
