// A small pre-LayerNorm transformer (decoder-style, causal self-attention) trained
// with a mean-squared-error loss.
//
//   x : tensor<4x8x32xf32>  (already-embedded tokens: batch 4, sequence 8, model dim 32;
//                            batch on dimension 0)
//   y : tensor<4x8x32xf32>  (regression target)
//   2 blocks, each:  h = x + Wo(attn(LN1(x)));  out = h + W2(gelu(W1(LN2(h))))
//     - attention: 2 heads of dim 16, Q/K/V/O projections 32x32 (bias on O only),
//       scores scaled by 1/sqrt(16) plus a causal mask, softmax along the key axis
//       (reduce_max / sub / exp / reduce_sum / reciprocal / mul)
//     - MLP: 32 -> 128 -> 32 with biases, GELU via tosa.erf:
//       gelu(t) = 0.5 * t * (1 + erf(t / sqrt(2)))
//     - LayerNorm over the model dim with eps = 1e-5 and learnable gamma/beta
//   final LayerNorm, then loss = sum((out - y)^2) / (4 * 8 * 32), returned as tensor<f32>
//
// Projections and the MLP run on the tokens flattened to [1, 32, 32] (batch*seq
// rows) so that every tosa.matmul is 3-D with matching batch dims; attention runs on
// [8, 8, 16] (batch*heads) via reshape + transpose.
//
// Run:
//   pipewave-opt examples/transformer.mlir --pass-pipeline='builtin.module(pipe-train{num-stages=2 schedule=1f1b microbatches=4})'

func.func @main(
    %x: tensor<4x8x32xf32> {pipe.name = "x"},
    %y: tensor<4x8x32xf32> {pipe.name = "y"},
    %l0_ln1_gamma: tensor<1x1x32xf32> {pipe.param, pipe.name = "l0_ln1_gamma"},
    %l0_ln1_beta: tensor<1x1x32xf32> {pipe.param, pipe.name = "l0_ln1_beta"},
    %l0_wq: tensor<1x32x32xf32> {pipe.param, pipe.name = "l0_wq"},
    %l0_wk: tensor<1x32x32xf32> {pipe.param, pipe.name = "l0_wk"},
    %l0_wv: tensor<1x32x32xf32> {pipe.param, pipe.name = "l0_wv"},
    %l0_wo: tensor<1x32x32xf32> {pipe.param, pipe.name = "l0_wo"},
    %l0_bo: tensor<1x1x32xf32> {pipe.param, pipe.name = "l0_bo"},
    %l0_ln2_gamma: tensor<1x1x32xf32> {pipe.param, pipe.name = "l0_ln2_gamma"},
    %l0_ln2_beta: tensor<1x1x32xf32> {pipe.param, pipe.name = "l0_ln2_beta"},
    %l0_w1: tensor<1x32x128xf32> {pipe.param, pipe.name = "l0_w1"},
    %l0_b1: tensor<1x1x128xf32> {pipe.param, pipe.name = "l0_b1"},
    %l0_w2: tensor<1x128x32xf32> {pipe.param, pipe.name = "l0_w2"},
    %l0_b2: tensor<1x1x32xf32> {pipe.param, pipe.name = "l0_b2"},
    %l1_ln1_gamma: tensor<1x1x32xf32> {pipe.param, pipe.name = "l1_ln1_gamma"},
    %l1_ln1_beta: tensor<1x1x32xf32> {pipe.param, pipe.name = "l1_ln1_beta"},
    %l1_wq: tensor<1x32x32xf32> {pipe.param, pipe.name = "l1_wq"},
    %l1_wk: tensor<1x32x32xf32> {pipe.param, pipe.name = "l1_wk"},
    %l1_wv: tensor<1x32x32xf32> {pipe.param, pipe.name = "l1_wv"},
    %l1_wo: tensor<1x32x32xf32> {pipe.param, pipe.name = "l1_wo"},
    %l1_bo: tensor<1x1x32xf32> {pipe.param, pipe.name = "l1_bo"},
    %l1_ln2_gamma: tensor<1x1x32xf32> {pipe.param, pipe.name = "l1_ln2_gamma"},
    %l1_ln2_beta: tensor<1x1x32xf32> {pipe.param, pipe.name = "l1_ln2_beta"},
    %l1_w1: tensor<1x32x128xf32> {pipe.param, pipe.name = "l1_w1"},
    %l1_b1: tensor<1x1x128xf32> {pipe.param, pipe.name = "l1_b1"},
    %l1_w2: tensor<1x128x32xf32> {pipe.param, pipe.name = "l1_w2"},
    %l1_b2: tensor<1x1x32xf32> {pipe.param, pipe.name = "l1_b2"},
    %lnf_gamma: tensor<1x1x32xf32> {pipe.param, pipe.name = "lnf_gamma"},
    %lnf_beta: tensor<1x1x32xf32> {pipe.param, pipe.name = "lnf_beta"}
    ) -> tensor<f32> {
  // Constants shared by all blocks.
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_d = "tosa.const"() <{values = dense<0.03125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-05> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %att_scale = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %causal_mask = "tosa.const"() <{values = dense<[[
      [0.0, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09],
      [0.0, 0.0, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09],
      [0.0, 0.0, 0.0, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09],
      [0.0, 0.0, 0.0, 0.0, -1.0e+09, -1.0e+09, -1.0e+09, -1.0e+09],
      [0.0, 0.0, 0.0, 0.0, 0.0, -1.0e+09, -1.0e+09, -1.0e+09],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0e+09, -1.0e+09],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0e+09],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]> : tensor<1x8x8xf32>}> : () -> tensor<1x8x8xf32>
  %inv_sqrt2 = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s_tok = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_act = tosa.const_shape {values = dense<[4, 8, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_split = tosa.const_shape {values = dense<[4, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_heads = tosa.const_shape {values = dense<[8, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_heads_t = tosa.const_shape {values = dense<[8, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_merge = tosa.const_shape {values = dense<[4, 2, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>

  // ---- Block 0 ----
  // LayerNorm 1
  %l0_ln1_sum = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l0_ln1_mean = tosa.mul %l0_ln1_sum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l0_ln1_xc = tosa.sub %x, %l0_ln1_mean : (tensor<4x8x32xf32>, tensor<4x8x1xf32>) -> tensor<4x8x32xf32>
  %l0_ln1_sq = tosa.mul %l0_ln1_xc, %l0_ln1_xc, %shift : (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l0_ln1_sqsum = tosa.reduce_sum %l0_ln1_sq {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l0_ln1_var = tosa.mul %l0_ln1_sqsum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l0_ln1_vareps = tosa.add %l0_ln1_var, %eps : (tensor<4x8x1xf32>, tensor<1x1x1xf32>) -> tensor<4x8x1xf32>
  %l0_ln1_rstd = tosa.rsqrt %l0_ln1_vareps : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %l0_ln1_norm = tosa.mul %l0_ln1_xc, %l0_ln1_rstd, %shift : (tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l0_ln1_scaled = tosa.mul %l0_ln1_norm, %l0_ln1_gamma, %shift : (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l0_ln1_out = tosa.add %l0_ln1_scaled, %l0_ln1_beta : (tensor<4x8x32xf32>, tensor<1x1x32xf32>) -> tensor<4x8x32xf32>
  // Self-attention: projections on [1, 32, 32]
  %l0_tok = tosa.reshape %l0_ln1_out, %s_tok : (tensor<4x8x32xf32>, !tosa.shape<3>) -> tensor<1x32x32xf32>
  %l0_q = tosa.matmul %l0_tok, %l0_wq, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l0_q4 = tosa.reshape %l0_q, %s_split : (tensor<1x32x32xf32>, !tosa.shape<4>) -> tensor<4x8x2x16xf32>
  %l0_k = tosa.matmul %l0_tok, %l0_wk, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l0_k4 = tosa.reshape %l0_k, %s_split : (tensor<1x32x32xf32>, !tosa.shape<4>) -> tensor<4x8x2x16xf32>
  %l0_v = tosa.matmul %l0_tok, %l0_wv, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l0_v4 = tosa.reshape %l0_v, %s_split : (tensor<1x32x32xf32>, !tosa.shape<4>) -> tensor<4x8x2x16xf32>
  // Split heads: [4, 8, 2, 16] -> [8, 8, 16] (K transposed to [8, 16, 8])
  %l0_qt = tosa.transpose %l0_q4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<4x8x2x16xf32>) -> tensor<4x2x8x16xf32>
  %l0_qh = tosa.reshape %l0_qt, %s_heads : (tensor<4x2x8x16xf32>, !tosa.shape<3>) -> tensor<8x8x16xf32>
  %l0_kt = tosa.transpose %l0_k4 {perms = array<i32: 0, 2, 3, 1>} : (tensor<4x8x2x16xf32>) -> tensor<4x2x16x8xf32>
  %l0_kh = tosa.reshape %l0_kt, %s_heads_t : (tensor<4x2x16x8xf32>, !tosa.shape<3>) -> tensor<8x16x8xf32>
  %l0_vt = tosa.transpose %l0_v4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<4x8x2x16xf32>) -> tensor<4x2x8x16xf32>
  %l0_vh = tosa.reshape %l0_vt, %s_heads : (tensor<4x2x8x16xf32>, !tosa.shape<3>) -> tensor<8x8x16xf32>
  // Scores, scale, causal mask, softmax over keys
  %l0_scores = tosa.matmul %l0_qh, %l0_kh, %zp, %zp : (tensor<8x8x16xf32>, tensor<8x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x8x8xf32>
  %l0_scaled = tosa.mul %l0_scores, %att_scale, %shift : (tensor<8x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<8x8x8xf32>
  %l0_masked = tosa.add %l0_scaled, %causal_mask : (tensor<8x8x8xf32>, tensor<1x8x8xf32>) -> tensor<8x8x8xf32>
  %l0_smax = tosa.reduce_max %l0_masked {axis = 2 : i32} : (tensor<8x8x8xf32>) -> tensor<8x8x1xf32>
  %l0_shifted = tosa.sub %l0_masked, %l0_smax : (tensor<8x8x8xf32>, tensor<8x8x1xf32>) -> tensor<8x8x8xf32>
  %l0_exp = tosa.exp %l0_shifted : (tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %l0_esum = tosa.reduce_sum %l0_exp {axis = 2 : i32} : (tensor<8x8x8xf32>) -> tensor<8x8x1xf32>
  %l0_rsum = tosa.reciprocal %l0_esum : (tensor<8x8x1xf32>) -> tensor<8x8x1xf32>
  %l0_probs = tosa.mul %l0_exp, %l0_rsum, %shift : (tensor<8x8x8xf32>, tensor<8x8x1xf32>, tensor<1xi8>) -> tensor<8x8x8xf32>
  // Weighted values, merge heads, output projection, residual
  %l0_ctx = tosa.matmul %l0_probs, %l0_vh, %zp, %zp : (tensor<8x8x8xf32>, tensor<8x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x8x16xf32>
  %l0_ctx4 = tosa.reshape %l0_ctx, %s_merge : (tensor<8x8x16xf32>, !tosa.shape<4>) -> tensor<4x2x8x16xf32>
  %l0_ctxt = tosa.transpose %l0_ctx4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<4x2x8x16xf32>) -> tensor<4x8x2x16xf32>
  %l0_ctxtok = tosa.reshape %l0_ctxt, %s_tok : (tensor<4x8x2x16xf32>, !tosa.shape<3>) -> tensor<1x32x32xf32>
  %l0_o = tosa.matmul %l0_ctxtok, %l0_wo, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l0_ob = tosa.add %l0_o, %l0_bo : (tensor<1x32x32xf32>, tensor<1x1x32xf32>) -> tensor<1x32x32xf32>
  %l0_attn = tosa.reshape %l0_ob, %s_act : (tensor<1x32x32xf32>, !tosa.shape<3>) -> tensor<4x8x32xf32>
  %l0_res1 = tosa.add %x, %l0_attn : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  // LayerNorm 2
  %l0_ln2_sum = tosa.reduce_sum %l0_res1 {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l0_ln2_mean = tosa.mul %l0_ln2_sum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l0_ln2_xc = tosa.sub %l0_res1, %l0_ln2_mean : (tensor<4x8x32xf32>, tensor<4x8x1xf32>) -> tensor<4x8x32xf32>
  %l0_ln2_sq = tosa.mul %l0_ln2_xc, %l0_ln2_xc, %shift : (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l0_ln2_sqsum = tosa.reduce_sum %l0_ln2_sq {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l0_ln2_var = tosa.mul %l0_ln2_sqsum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l0_ln2_vareps = tosa.add %l0_ln2_var, %eps : (tensor<4x8x1xf32>, tensor<1x1x1xf32>) -> tensor<4x8x1xf32>
  %l0_ln2_rstd = tosa.rsqrt %l0_ln2_vareps : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %l0_ln2_norm = tosa.mul %l0_ln2_xc, %l0_ln2_rstd, %shift : (tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l0_ln2_scaled = tosa.mul %l0_ln2_norm, %l0_ln2_gamma, %shift : (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l0_ln2_out = tosa.add %l0_ln2_scaled, %l0_ln2_beta : (tensor<4x8x32xf32>, tensor<1x1x32xf32>) -> tensor<4x8x32xf32>
  // MLP 32 -> 128 -> 32 with GELU, residual
  %l0_mtok = tosa.reshape %l0_ln2_out, %s_tok : (tensor<4x8x32xf32>, !tosa.shape<3>) -> tensor<1x32x32xf32>
  %l0_fc1 = tosa.matmul %l0_mtok, %l0_w1, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x128xf32>
  %l0_fc1b = tosa.add %l0_fc1, %l0_b1 : (tensor<1x32x128xf32>, tensor<1x1x128xf32>) -> tensor<1x32x128xf32>
  %l0_gx = tosa.mul %l0_fc1b, %inv_sqrt2, %shift : (tensor<1x32x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x32x128xf32>
  %l0_gerf = tosa.erf %l0_gx : (tensor<1x32x128xf32>) -> tensor<1x32x128xf32>
  %l0_gerf1 = tosa.add %l0_gerf, %one : (tensor<1x32x128xf32>, tensor<1x1x1xf32>) -> tensor<1x32x128xf32>
  %l0_gprod = tosa.mul %l0_fc1b, %l0_gerf1, %shift : (tensor<1x32x128xf32>, tensor<1x32x128xf32>, tensor<1xi8>) -> tensor<1x32x128xf32>
  %l0_gelu = tosa.mul %l0_gprod, %half, %shift : (tensor<1x32x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x32x128xf32>
  %l0_fc2 = tosa.matmul %l0_gelu, %l0_w2, %zp, %zp : (tensor<1x32x128xf32>, tensor<1x128x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l0_fc2b = tosa.add %l0_fc2, %l0_b2 : (tensor<1x32x32xf32>, tensor<1x1x32xf32>) -> tensor<1x32x32xf32>
  %l0_mlp = tosa.reshape %l0_fc2b, %s_act : (tensor<1x32x32xf32>, !tosa.shape<3>) -> tensor<4x8x32xf32>
  %l0_out = tosa.add %l0_res1, %l0_mlp : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xf32>

  // ---- Block 1 ----
  // LayerNorm 1
  %l1_ln1_sum = tosa.reduce_sum %l0_out {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l1_ln1_mean = tosa.mul %l1_ln1_sum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l1_ln1_xc = tosa.sub %l0_out, %l1_ln1_mean : (tensor<4x8x32xf32>, tensor<4x8x1xf32>) -> tensor<4x8x32xf32>
  %l1_ln1_sq = tosa.mul %l1_ln1_xc, %l1_ln1_xc, %shift : (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l1_ln1_sqsum = tosa.reduce_sum %l1_ln1_sq {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l1_ln1_var = tosa.mul %l1_ln1_sqsum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l1_ln1_vareps = tosa.add %l1_ln1_var, %eps : (tensor<4x8x1xf32>, tensor<1x1x1xf32>) -> tensor<4x8x1xf32>
  %l1_ln1_rstd = tosa.rsqrt %l1_ln1_vareps : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %l1_ln1_norm = tosa.mul %l1_ln1_xc, %l1_ln1_rstd, %shift : (tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l1_ln1_scaled = tosa.mul %l1_ln1_norm, %l1_ln1_gamma, %shift : (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l1_ln1_out = tosa.add %l1_ln1_scaled, %l1_ln1_beta : (tensor<4x8x32xf32>, tensor<1x1x32xf32>) -> tensor<4x8x32xf32>
  // Self-attention: projections on [1, 32, 32]
  %l1_tok = tosa.reshape %l1_ln1_out, %s_tok : (tensor<4x8x32xf32>, !tosa.shape<3>) -> tensor<1x32x32xf32>
  %l1_q = tosa.matmul %l1_tok, %l1_wq, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l1_q4 = tosa.reshape %l1_q, %s_split : (tensor<1x32x32xf32>, !tosa.shape<4>) -> tensor<4x8x2x16xf32>
  %l1_k = tosa.matmul %l1_tok, %l1_wk, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l1_k4 = tosa.reshape %l1_k, %s_split : (tensor<1x32x32xf32>, !tosa.shape<4>) -> tensor<4x8x2x16xf32>
  %l1_v = tosa.matmul %l1_tok, %l1_wv, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l1_v4 = tosa.reshape %l1_v, %s_split : (tensor<1x32x32xf32>, !tosa.shape<4>) -> tensor<4x8x2x16xf32>
  // Split heads: [4, 8, 2, 16] -> [8, 8, 16] (K transposed to [8, 16, 8])
  %l1_qt = tosa.transpose %l1_q4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<4x8x2x16xf32>) -> tensor<4x2x8x16xf32>
  %l1_qh = tosa.reshape %l1_qt, %s_heads : (tensor<4x2x8x16xf32>, !tosa.shape<3>) -> tensor<8x8x16xf32>
  %l1_kt = tosa.transpose %l1_k4 {perms = array<i32: 0, 2, 3, 1>} : (tensor<4x8x2x16xf32>) -> tensor<4x2x16x8xf32>
  %l1_kh = tosa.reshape %l1_kt, %s_heads_t : (tensor<4x2x16x8xf32>, !tosa.shape<3>) -> tensor<8x16x8xf32>
  %l1_vt = tosa.transpose %l1_v4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<4x8x2x16xf32>) -> tensor<4x2x8x16xf32>
  %l1_vh = tosa.reshape %l1_vt, %s_heads : (tensor<4x2x8x16xf32>, !tosa.shape<3>) -> tensor<8x8x16xf32>
  // Scores, scale, causal mask, softmax over keys
  %l1_scores = tosa.matmul %l1_qh, %l1_kh, %zp, %zp : (tensor<8x8x16xf32>, tensor<8x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x8x8xf32>
  %l1_scaled = tosa.mul %l1_scores, %att_scale, %shift : (tensor<8x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<8x8x8xf32>
  %l1_masked = tosa.add %l1_scaled, %causal_mask : (tensor<8x8x8xf32>, tensor<1x8x8xf32>) -> tensor<8x8x8xf32>
  %l1_smax = tosa.reduce_max %l1_masked {axis = 2 : i32} : (tensor<8x8x8xf32>) -> tensor<8x8x1xf32>
  %l1_shifted = tosa.sub %l1_masked, %l1_smax : (tensor<8x8x8xf32>, tensor<8x8x1xf32>) -> tensor<8x8x8xf32>
  %l1_exp = tosa.exp %l1_shifted : (tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %l1_esum = tosa.reduce_sum %l1_exp {axis = 2 : i32} : (tensor<8x8x8xf32>) -> tensor<8x8x1xf32>
  %l1_rsum = tosa.reciprocal %l1_esum : (tensor<8x8x1xf32>) -> tensor<8x8x1xf32>
  %l1_probs = tosa.mul %l1_exp, %l1_rsum, %shift : (tensor<8x8x8xf32>, tensor<8x8x1xf32>, tensor<1xi8>) -> tensor<8x8x8xf32>
  // Weighted values, merge heads, output projection, residual
  %l1_ctx = tosa.matmul %l1_probs, %l1_vh, %zp, %zp : (tensor<8x8x8xf32>, tensor<8x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x8x16xf32>
  %l1_ctx4 = tosa.reshape %l1_ctx, %s_merge : (tensor<8x8x16xf32>, !tosa.shape<4>) -> tensor<4x2x8x16xf32>
  %l1_ctxt = tosa.transpose %l1_ctx4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<4x2x8x16xf32>) -> tensor<4x8x2x16xf32>
  %l1_ctxtok = tosa.reshape %l1_ctxt, %s_tok : (tensor<4x8x2x16xf32>, !tosa.shape<3>) -> tensor<1x32x32xf32>
  %l1_o = tosa.matmul %l1_ctxtok, %l1_wo, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l1_ob = tosa.add %l1_o, %l1_bo : (tensor<1x32x32xf32>, tensor<1x1x32xf32>) -> tensor<1x32x32xf32>
  %l1_attn = tosa.reshape %l1_ob, %s_act : (tensor<1x32x32xf32>, !tosa.shape<3>) -> tensor<4x8x32xf32>
  %l1_res1 = tosa.add %l0_out, %l1_attn : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  // LayerNorm 2
  %l1_ln2_sum = tosa.reduce_sum %l1_res1 {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l1_ln2_mean = tosa.mul %l1_ln2_sum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l1_ln2_xc = tosa.sub %l1_res1, %l1_ln2_mean : (tensor<4x8x32xf32>, tensor<4x8x1xf32>) -> tensor<4x8x32xf32>
  %l1_ln2_sq = tosa.mul %l1_ln2_xc, %l1_ln2_xc, %shift : (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l1_ln2_sqsum = tosa.reduce_sum %l1_ln2_sq {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %l1_ln2_var = tosa.mul %l1_ln2_sqsum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %l1_ln2_vareps = tosa.add %l1_ln2_var, %eps : (tensor<4x8x1xf32>, tensor<1x1x1xf32>) -> tensor<4x8x1xf32>
  %l1_ln2_rstd = tosa.rsqrt %l1_ln2_vareps : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %l1_ln2_norm = tosa.mul %l1_ln2_xc, %l1_ln2_rstd, %shift : (tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l1_ln2_scaled = tosa.mul %l1_ln2_norm, %l1_ln2_gamma, %shift : (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %l1_ln2_out = tosa.add %l1_ln2_scaled, %l1_ln2_beta : (tensor<4x8x32xf32>, tensor<1x1x32xf32>) -> tensor<4x8x32xf32>
  // MLP 32 -> 128 -> 32 with GELU, residual
  %l1_mtok = tosa.reshape %l1_ln2_out, %s_tok : (tensor<4x8x32xf32>, !tosa.shape<3>) -> tensor<1x32x32xf32>
  %l1_fc1 = tosa.matmul %l1_mtok, %l1_w1, %zp, %zp : (tensor<1x32x32xf32>, tensor<1x32x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x128xf32>
  %l1_fc1b = tosa.add %l1_fc1, %l1_b1 : (tensor<1x32x128xf32>, tensor<1x1x128xf32>) -> tensor<1x32x128xf32>
  %l1_gx = tosa.mul %l1_fc1b, %inv_sqrt2, %shift : (tensor<1x32x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x32x128xf32>
  %l1_gerf = tosa.erf %l1_gx : (tensor<1x32x128xf32>) -> tensor<1x32x128xf32>
  %l1_gerf1 = tosa.add %l1_gerf, %one : (tensor<1x32x128xf32>, tensor<1x1x1xf32>) -> tensor<1x32x128xf32>
  %l1_gprod = tosa.mul %l1_fc1b, %l1_gerf1, %shift : (tensor<1x32x128xf32>, tensor<1x32x128xf32>, tensor<1xi8>) -> tensor<1x32x128xf32>
  %l1_gelu = tosa.mul %l1_gprod, %half, %shift : (tensor<1x32x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x32x128xf32>
  %l1_fc2 = tosa.matmul %l1_gelu, %l1_w2, %zp, %zp : (tensor<1x32x128xf32>, tensor<1x128x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32xf32>
  %l1_fc2b = tosa.add %l1_fc2, %l1_b2 : (tensor<1x32x32xf32>, tensor<1x1x32xf32>) -> tensor<1x32x32xf32>
  %l1_mlp = tosa.reshape %l1_fc2b, %s_act : (tensor<1x32x32xf32>, !tosa.shape<3>) -> tensor<4x8x32xf32>
  %l1_out = tosa.add %l1_res1, %l1_mlp : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xf32>

  // Final LayerNorm and mean-squared-error loss
  %lnf_sum = tosa.reduce_sum %l1_out {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %lnf_mean = tosa.mul %lnf_sum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %lnf_xc = tosa.sub %l1_out, %lnf_mean : (tensor<4x8x32xf32>, tensor<4x8x1xf32>) -> tensor<4x8x32xf32>
  %lnf_sq = tosa.mul %lnf_xc, %lnf_xc, %shift : (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %lnf_sqsum = tosa.reduce_sum %lnf_sq {axis = 2 : i32} : (tensor<4x8x32xf32>) -> tensor<4x8x1xf32>
  %lnf_var = tosa.mul %lnf_sqsum, %inv_d, %shift : (tensor<4x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x1xf32>
  %lnf_vareps = tosa.add %lnf_var, %eps : (tensor<4x8x1xf32>, tensor<1x1x1xf32>) -> tensor<4x8x1xf32>
  %lnf_rstd = tosa.rsqrt %lnf_vareps : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %lnf_norm = tosa.mul %lnf_xc, %lnf_rstd, %shift : (tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %lnf_scaled = tosa.mul %lnf_norm, %lnf_gamma, %shift : (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %lnf_out = tosa.add %lnf_scaled, %lnf_beta : (tensor<4x8x32xf32>, tensor<1x1x32xf32>) -> tensor<4x8x32xf32>
  %diff = tosa.sub %lnf_out, %y : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %sq = tosa.mul %diff, %diff, %shift : (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1xi8>) -> tensor<4x8x32xf32>
  %sum0 = tosa.reduce_sum %sq {axis = 0 : i32} : (tensor<4x8x32xf32>) -> tensor<1x8x32xf32>
  %sum1 = tosa.reduce_sum %sum0 {axis = 1 : i32} : (tensor<1x8x32xf32>) -> tensor<1x1x32xf32>
  %sum2 = tosa.reduce_sum %sum1 {axis = 2 : i32} : (tensor<1x1x32xf32>) -> tensor<1x1x1xf32>
  %s_scalar = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %total = tosa.reshape %sum2, %s_scalar : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  %inv_n = "tosa.const"() <{values = dense<0.0009765625> : tensor<f32>}> : () -> tensor<f32>
  %loss = tosa.mul %total, %inv_n, %shift : (tensor<f32>, tensor<f32>, tensor<1xi8>) -> tensor<f32>
  return %loss : tensor<f32>
}
