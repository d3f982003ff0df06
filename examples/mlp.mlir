// A deep MLP trained with a mean-squared-error loss (8 linear layers, ReLU between them).
//
//   x : tensor<16x64xf32>  (data, batch on dimension 0)
//   y : tensor<16x8xf32>  (regression target)
//   layer k: h = h @ wK + bK, wK : tensor<1xINxOUTxf32>, bK : tensor<1xOUTxf32>,
//            followed by ReLU (tosa.clamp) except after the last layer
//   widths: 64 -> 128 -> 128 -> 128 -> 128 -> 128 -> 128 -> 128 -> 8
//   loss = sum((h - y)^2) / (16 * 8), returned as tensor<f32>
//
// Activations stay 2-D with the batch on dimension 0; every matmul is wrapped
// in reshapes to/from the 3-D form tosa.matmul requires ([1, batch, IN] x [1, IN, OUT]).
//
// Run:
//   pipewave-opt examples/mlp.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=8})'
// Regenerate (or make deeper/wider variants): python3 scripts/gen-mlp.py --layers N --width W --batch B

func.func @main(
    %x: tensor<16x64xf32> {pipe.name = "x"},
    %y: tensor<16x8xf32> {pipe.name = "y"},
    %w0: tensor<1x64x128xf32> {pipe.param, pipe.name = "w0"},
    %b0: tensor<1x128xf32> {pipe.param, pipe.name = "b0"},
    %w1: tensor<1x128x128xf32> {pipe.param, pipe.name = "w1"},
    %b1: tensor<1x128xf32> {pipe.param, pipe.name = "b1"},
    %w2: tensor<1x128x128xf32> {pipe.param, pipe.name = "w2"},
    %b2: tensor<1x128xf32> {pipe.param, pipe.name = "b2"},
    %w3: tensor<1x128x128xf32> {pipe.param, pipe.name = "w3"},
    %b3: tensor<1x128xf32> {pipe.param, pipe.name = "b3"},
    %w4: tensor<1x128x128xf32> {pipe.param, pipe.name = "w4"},
    %b4: tensor<1x128xf32> {pipe.param, pipe.name = "b4"},
    %w5: tensor<1x128x128xf32> {pipe.param, pipe.name = "w5"},
    %b5: tensor<1x128xf32> {pipe.param, pipe.name = "b5"},
    %w6: tensor<1x128x128xf32> {pipe.param, pipe.name = "w6"},
    %b6: tensor<1x128xf32> {pipe.param, pipe.name = "b6"},
    %w7: tensor<1x128x8xf32> {pipe.param, pipe.name = "w7"},
    %b7: tensor<1x8xf32> {pipe.param, pipe.name = "b7"}
    ) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3_64 = tosa.const_shape {values = dense<[1, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3_128 = tosa.const_shape {values = dense<[1, 16, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2_128 = tosa.const_shape {values = dense<[16, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s2_8 = tosa.const_shape {values = dense<[16, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>

  // Layer 0: 64 -> 128, ReLU
  %in0 = tosa.reshape %x, %s3_64 : (tensor<16x64xf32>, !tosa.shape<3>) -> tensor<1x16x64xf32>
  %mm0 = tosa.matmul %in0, %w0, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %mm2d0 = tosa.reshape %mm0, %s2_128 : (tensor<1x16x128xf32>, !tosa.shape<2>) -> tensor<16x128xf32>
  %lin0 = tosa.add %mm2d0, %b0 : (tensor<16x128xf32>, tensor<1x128xf32>) -> tensor<16x128xf32>
  %h0 = tosa.clamp %lin0 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<16x128xf32>) -> tensor<16x128xf32>

  // Layer 1: 128 -> 128, ReLU
  %in1 = tosa.reshape %h0, %s3_128 : (tensor<16x128xf32>, !tosa.shape<3>) -> tensor<1x16x128xf32>
  %mm1 = tosa.matmul %in1, %w1, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %mm2d1 = tosa.reshape %mm1, %s2_128 : (tensor<1x16x128xf32>, !tosa.shape<2>) -> tensor<16x128xf32>
  %lin1 = tosa.add %mm2d1, %b1 : (tensor<16x128xf32>, tensor<1x128xf32>) -> tensor<16x128xf32>
  %h1 = tosa.clamp %lin1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<16x128xf32>) -> tensor<16x128xf32>

  // Layer 2: 128 -> 128, ReLU
  %in2 = tosa.reshape %h1, %s3_128 : (tensor<16x128xf32>, !tosa.shape<3>) -> tensor<1x16x128xf32>
  %mm2 = tosa.matmul %in2, %w2, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %mm2d2 = tosa.reshape %mm2, %s2_128 : (tensor<1x16x128xf32>, !tosa.shape<2>) -> tensor<16x128xf32>
  %lin2 = tosa.add %mm2d2, %b2 : (tensor<16x128xf32>, tensor<1x128xf32>) -> tensor<16x128xf32>
  %h2 = tosa.clamp %lin2 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<16x128xf32>) -> tensor<16x128xf32>

  // Layer 3: 128 -> 128, ReLU
  %in3 = tosa.reshape %h2, %s3_128 : (tensor<16x128xf32>, !tosa.shape<3>) -> tensor<1x16x128xf32>
  %mm3 = tosa.matmul %in3, %w3, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %mm2d3 = tosa.reshape %mm3, %s2_128 : (tensor<1x16x128xf32>, !tosa.shape<2>) -> tensor<16x128xf32>
  %lin3 = tosa.add %mm2d3, %b3 : (tensor<16x128xf32>, tensor<1x128xf32>) -> tensor<16x128xf32>
  %h3 = tosa.clamp %lin3 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<16x128xf32>) -> tensor<16x128xf32>

  // Layer 4: 128 -> 128, ReLU
  %in4 = tosa.reshape %h3, %s3_128 : (tensor<16x128xf32>, !tosa.shape<3>) -> tensor<1x16x128xf32>
  %mm4 = tosa.matmul %in4, %w4, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %mm2d4 = tosa.reshape %mm4, %s2_128 : (tensor<1x16x128xf32>, !tosa.shape<2>) -> tensor<16x128xf32>
  %lin4 = tosa.add %mm2d4, %b4 : (tensor<16x128xf32>, tensor<1x128xf32>) -> tensor<16x128xf32>
  %h4 = tosa.clamp %lin4 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<16x128xf32>) -> tensor<16x128xf32>

  // Layer 5: 128 -> 128, ReLU
  %in5 = tosa.reshape %h4, %s3_128 : (tensor<16x128xf32>, !tosa.shape<3>) -> tensor<1x16x128xf32>
  %mm5 = tosa.matmul %in5, %w5, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %mm2d5 = tosa.reshape %mm5, %s2_128 : (tensor<1x16x128xf32>, !tosa.shape<2>) -> tensor<16x128xf32>
  %lin5 = tosa.add %mm2d5, %b5 : (tensor<16x128xf32>, tensor<1x128xf32>) -> tensor<16x128xf32>
  %h5 = tosa.clamp %lin5 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<16x128xf32>) -> tensor<16x128xf32>

  // Layer 6: 128 -> 128, ReLU
  %in6 = tosa.reshape %h5, %s3_128 : (tensor<16x128xf32>, !tosa.shape<3>) -> tensor<1x16x128xf32>
  %mm6 = tosa.matmul %in6, %w6, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %mm2d6 = tosa.reshape %mm6, %s2_128 : (tensor<1x16x128xf32>, !tosa.shape<2>) -> tensor<16x128xf32>
  %lin6 = tosa.add %mm2d6, %b6 : (tensor<16x128xf32>, tensor<1x128xf32>) -> tensor<16x128xf32>
  %h6 = tosa.clamp %lin6 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<16x128xf32>) -> tensor<16x128xf32>

  // Layer 7: 128 -> 8
  %in7 = tosa.reshape %h6, %s3_128 : (tensor<16x128xf32>, !tosa.shape<3>) -> tensor<1x16x128xf32>
  %mm7 = tosa.matmul %in7, %w7, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x8xf32>
  %mm2d7 = tosa.reshape %mm7, %s2_8 : (tensor<1x16x8xf32>, !tosa.shape<2>) -> tensor<16x8xf32>
  %out = tosa.add %mm2d7, %b7 : (tensor<16x8xf32>, tensor<1x8xf32>) -> tensor<16x8xf32>

  // Mean-squared-error loss.
  %diff = tosa.sub %out, %y : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %sq = tosa.mul %diff, %diff, %shift : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<1xi8>) -> tensor<16x8xf32>
  %sum0 = tosa.reduce_sum %sq {axis = 0 : i32} : (tensor<16x8xf32>) -> tensor<1x8xf32>
  %sum1 = tosa.reduce_sum %sum0 {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %s0 = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %total = tosa.reshape %sum1, %s0 : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  %inv_n = "tosa.const"() <{values = dense<0.0078125> : tensor<f32>}> : () -> tensor<f32>
  %loss = tosa.mul %total, %inv_n, %shift : (tensor<f32>, tensor<f32>, tensor<1xi8>) -> tensor<f32>
  return %loss : tensor<f32>
}
