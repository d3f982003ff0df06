"builtin.module"() <{sym_name = "jit_mlp_loss"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}, {}, {}, {}, {}], function_type = (tensor<16xf32>, tensor<16xf32>, tensor<2xf32>, tensor<4x16xf32>, tensor<16x16xf32>, tensor<16x2xf32>, tensor<8x4xf32>, tensor<8x2xf32>) -> tensor<f32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg1: tensor<16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<2xf32>, %arg4: tensor<4x16xf32>, %arg5: tensor<16x16xf32>, %arg6: tensor<16x2xf32>, %arg7: tensor<8x4xf32>, %arg8: tensor<8x2xf32>):
    %3 = "stablehlo.dot_general"(%arg7, %arg4) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    %4 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %6 = "stablehlo.add"(%3, %5) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %7 = "func.call"(%6) <{callee = @relu}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %8 = "stablehlo.dot_general"(%7, %arg5) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %9 = "stablehlo.broadcast_in_dim"(%arg2) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %11 = "stablehlo.add"(%8, %10) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %12 = "stablehlo.tanh"(%11) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %13 = "stablehlo.dot_general"(%12, %arg6) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x2xf32>) -> tensor<8x2xf32>
    %14 = "stablehlo.broadcast_in_dim"(%arg3) <{broadcast_dimensions = array<i64: 1>}> : (tensor<2xf32>) -> tensor<1x2xf32>
    %15 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x2xf32>) -> tensor<8x2xf32>
    %16 = "stablehlo.add"(%13, %15) : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
    %17 = "stablehlo.subtract"(%16, %arg8) : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
    %18 = "stablehlo.multiply"(%17, %17) : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
    %19 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %20 = "stablehlo.reduce"(%18, %19) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg9: tensor<f32>, %arg10: tensor<f32>):
      %23 = "stablehlo.add"(%arg9, %arg10) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%23) : (tensor<f32>) -> ()
    }) : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
    %21 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %22 = "stablehlo.divide"(%20, %21) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%22) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<8x16xf32>) -> tensor<8x16xf32>, res_attrs = [{}], sym_name = "relu", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8x16xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %2 = "stablehlo.maximum"(%arg0, %1) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    "func.return"(%2) : (tensor<8x16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
