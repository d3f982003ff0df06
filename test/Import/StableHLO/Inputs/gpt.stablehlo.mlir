module @jit_gpt_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16xf32>, %arg4: tensor<16xf32>, %arg5: tensor<16xf32>, %arg6: tensor<16x32xf32>, %arg7: tensor<32x16xf32>, %arg8: tensor<16x16xf32>, %arg9: tensor<16x16xf32>, %arg10: tensor<16x16xf32>, %arg11: tensor<16x16xf32>, %arg12: tensor<32xf32>, %arg13: tensor<16xf32>, %arg14: tensor<16xf32>, %arg15: tensor<16xf32>, %arg16: tensor<16xf32>, %arg17: tensor<16xf32>, %arg18: tensor<16x32xf32>, %arg19: tensor<32x16xf32>, %arg20: tensor<16x16xf32>, %arg21: tensor<16x16xf32>, %arg22: tensor<16x16xf32>, %arg23: tensor<16x16xf32>, %arg24: tensor<16xf32>, %arg25: tensor<16xf32>, %arg26: tensor<16x16xf32>, %arg27: tensor<8x16xf32>, %arg28: tensor<16x16xf32>, %arg29: tensor<4x8xi32>, %arg30: tensor<4x8xi32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x8xi32>
    %1 = stablehlo.compare LT, %arg29, %0, SIGNED : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
    %c_0 = stablehlo.constant dense<16> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4x8xi32>
    %3 = stablehlo.add %arg29, %2 : tensor<4x8xi32>
    %4 = stablehlo.select %1, %3, %arg29 : tensor<4x8xi1>, tensor<4x8xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<4x8xi32>) -> tensor<4x8x1xi32>
    %6 = "stablehlo.gather"(%arg28, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<16x16xf32>, tensor<4x8x1xi32>) -> tensor<4x8x16xf32>
    %7 = stablehlo.broadcast_in_dim %arg27, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x8x16xf32>) -> tensor<4x8x16xf32>
    %9 = stablehlo.add %6, %8 : tensor<4x8x16xf32>
    %c_1 = stablehlo.constant dense<true> : tensor<i1>
    %10 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %11 = call @tril(%10) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%9 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %15 = stablehlo.divide %13, %14 : tensor<4x8x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %17 = stablehlo.subtract %9, %16 : tensor<4x8x16xf32>
    %18 = chlo.square %17 : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_4 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %22 = stablehlo.divide %20, %21 : tensor<4x8x1xf32>
    %23 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %24 = stablehlo.subtract %9, %23 : tensor<4x8x16xf32>
    %cst_5 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %26 = stablehlo.add %22, %25 : tensor<4x8x1xf32>
    %27 = stablehlo.rsqrt %26 : tensor<4x8x1xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %29 = stablehlo.multiply %24, %28 : tensor<4x8x16xf32>
    %30 = stablehlo.broadcast_in_dim %arg3, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %32 = stablehlo.multiply %29, %31 : tensor<4x8x16xf32>
    %33 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %35 = stablehlo.add %32, %34 : tensor<4x8x16xf32>
    %36 = stablehlo.dot_general %35, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %37 = stablehlo.reshape %36 : (tensor<4x8x16xf32>) -> tensor<4x8x2x8xf32>
    %38 = stablehlo.transpose %37, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %39 = stablehlo.dot_general %35, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %40 = stablehlo.reshape %39 : (tensor<4x8x16xf32>) -> tensor<4x8x2x8xf32>
    %41 = stablehlo.transpose %40, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %42 = stablehlo.dot_general %35, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %43 = stablehlo.reshape %42 : (tensor<4x8x16xf32>) -> tensor<4x8x2x8xf32>
    %44 = stablehlo.transpose %43, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %45 = stablehlo.dot_general %38, %41, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_6 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %47 = stablehlo.divide %45, %46 : tensor<4x2x8x8xf32>
    %cst_7 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %48 = call @_where(%11, %47, %cst_7) : (tensor<8x8xi1>, tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8x8xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_8) applies stablehlo.maximum across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %cst_9 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %51 = stablehlo.maximum %50, %49 : tensor<4x2x8xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %54 = stablehlo.subtract %48, %53 : tensor<4x2x8x8xf32>
    %55 = stablehlo.exponential %54 : tensor<4x2x8x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.reduce(%55 init: %cst_10) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %59 = stablehlo.divide %55, %58 : tensor<4x2x8x8xf32>
    %60 = stablehlo.dot_general %59, %44, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %61 = stablehlo.transpose %60, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %62 = stablehlo.reshape %61 : (tensor<4x8x2x8xf32>) -> tensor<4x8x16xf32>
    %63 = stablehlo.dot_general %62, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %64 = stablehlo.add %9, %63 : tensor<4x8x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_11) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_12 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %68 = stablehlo.divide %66, %67 : tensor<4x8x1xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %70 = stablehlo.subtract %64, %69 : tensor<4x8x16xf32>
    %71 = chlo.square %70 : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_14 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %75 = stablehlo.divide %73, %74 : tensor<4x8x1xf32>
    %76 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %77 = stablehlo.subtract %64, %76 : tensor<4x8x16xf32>
    %cst_15 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %79 = stablehlo.add %75, %78 : tensor<4x8x1xf32>
    %80 = stablehlo.rsqrt %79 : tensor<4x8x1xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %82 = stablehlo.multiply %77, %81 : tensor<4x8x16xf32>
    %83 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %84 = stablehlo.broadcast_in_dim %83, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %85 = stablehlo.multiply %82, %84 : tensor<4x8x16xf32>
    %86 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %88 = stablehlo.add %85, %87 : tensor<4x8x16xf32>
    %89 = stablehlo.dot_general %88, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x32xf32>) -> tensor<4x8x32xf32>
    %90 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %91 = stablehlo.broadcast_in_dim %90, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<4x8x32xf32>
    %92 = stablehlo.add %89, %91 : tensor<4x8x32xf32>
    %93 = stablehlo.multiply %92, %92 : tensor<4x8x32xf32>
    %94 = stablehlo.multiply %93, %92 : tensor<4x8x32xf32>
    %cst_16 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %96 = stablehlo.multiply %95, %94 : tensor<4x8x32xf32>
    %97 = stablehlo.add %92, %96 : tensor<4x8x32xf32>
    %cst_17 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %99 = stablehlo.multiply %98, %97 : tensor<4x8x32xf32>
    %100 = stablehlo.tanh %99 : tensor<4x8x32xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %102 = stablehlo.add %101, %100 : tensor<4x8x32xf32>
    %cst_19 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %104 = stablehlo.multiply %103, %102 : tensor<4x8x32xf32>
    %105 = stablehlo.multiply %92, %104 : tensor<4x8x32xf32>
    %106 = stablehlo.dot_general %105, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x32xf32>, tensor<32x16xf32>) -> tensor<4x8x16xf32>
    %107 = stablehlo.add %64, %106 : tensor<4x8x16xf32>
    %108 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %109 = stablehlo.broadcast_in_dim %108, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %110 = stablehlo.add %107, %109 : tensor<4x8x16xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %111 = stablehlo.reduce(%110 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_21 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %114 = stablehlo.divide %112, %113 : tensor<4x8x1xf32>
    %115 = stablehlo.broadcast_in_dim %114, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %116 = stablehlo.subtract %110, %115 : tensor<4x8x16xf32>
    %117 = chlo.square %116 : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%117 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %119 = stablehlo.broadcast_in_dim %118, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_23 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %121 = stablehlo.divide %119, %120 : tensor<4x8x1xf32>
    %122 = stablehlo.broadcast_in_dim %114, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %123 = stablehlo.subtract %110, %122 : tensor<4x8x16xf32>
    %cst_24 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %125 = stablehlo.add %121, %124 : tensor<4x8x1xf32>
    %126 = stablehlo.rsqrt %125 : tensor<4x8x1xf32>
    %127 = stablehlo.broadcast_in_dim %126, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %128 = stablehlo.multiply %123, %127 : tensor<4x8x16xf32>
    %129 = stablehlo.broadcast_in_dim %arg15, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %130 = stablehlo.broadcast_in_dim %129, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %131 = stablehlo.multiply %128, %130 : tensor<4x8x16xf32>
    %132 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %133 = stablehlo.broadcast_in_dim %132, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %134 = stablehlo.add %131, %133 : tensor<4x8x16xf32>
    %135 = stablehlo.dot_general %134, %arg22, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %136 = stablehlo.reshape %135 : (tensor<4x8x16xf32>) -> tensor<4x8x2x8xf32>
    %137 = stablehlo.transpose %136, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %138 = stablehlo.dot_general %134, %arg20, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %139 = stablehlo.reshape %138 : (tensor<4x8x16xf32>) -> tensor<4x8x2x8xf32>
    %140 = stablehlo.transpose %139, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %141 = stablehlo.dot_general %134, %arg23, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %142 = stablehlo.reshape %141 : (tensor<4x8x16xf32>) -> tensor<4x8x2x8xf32>
    %143 = stablehlo.transpose %142, dims = [0, 2, 1, 3] : (tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %144 = stablehlo.dot_general %137, %140, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_25 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %146 = stablehlo.divide %144, %145 : tensor<4x2x8x8xf32>
    %cst_26 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %147 = call @_where(%11, %146, %cst_26) : (tensor<8x8xi1>, tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8x8xf32>
    %cst_27 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %148 = stablehlo.reduce(%147 init: %cst_27) applies stablehlo.maximum across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %cst_28 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x2x8xf32>
    %150 = stablehlo.maximum %149, %148 : tensor<4x2x8xf32>
    %151 = stablehlo.broadcast_in_dim %150, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %152 = stablehlo.broadcast_in_dim %151, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %153 = stablehlo.subtract %147, %152 : tensor<4x2x8x8xf32>
    %154 = stablehlo.exponential %153 : tensor<4x2x8x8xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %155 = stablehlo.reduce(%154 init: %cst_29) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %156 = stablehlo.broadcast_in_dim %155, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x1xf32>
    %157 = stablehlo.broadcast_in_dim %156, dims = [0, 1, 2, 3] : (tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
    %158 = stablehlo.divide %154, %157 : tensor<4x2x8x8xf32>
    %159 = stablehlo.dot_general %158, %143, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x2x8x8xf32>) -> tensor<4x2x8x8xf32>
    %160 = stablehlo.transpose %159, dims = [0, 2, 1, 3] : (tensor<4x2x8x8xf32>) -> tensor<4x8x2x8xf32>
    %161 = stablehlo.reshape %160 : (tensor<4x8x2x8xf32>) -> tensor<4x8x16xf32>
    %162 = stablehlo.dot_general %161, %arg21, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %163 = stablehlo.add %110, %162 : tensor<4x8x16xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %164 = stablehlo.reduce(%163 init: %cst_30) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %165 = stablehlo.broadcast_in_dim %164, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_31 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %166 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %167 = stablehlo.divide %165, %166 : tensor<4x8x1xf32>
    %168 = stablehlo.broadcast_in_dim %167, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %169 = stablehlo.subtract %163, %168 : tensor<4x8x16xf32>
    %170 = chlo.square %169 : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %171 = stablehlo.reduce(%170 init: %cst_32) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %172 = stablehlo.broadcast_in_dim %171, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_33 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %173 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %174 = stablehlo.divide %172, %173 : tensor<4x8x1xf32>
    %175 = stablehlo.broadcast_in_dim %167, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %176 = stablehlo.subtract %163, %175 : tensor<4x8x16xf32>
    %cst_34 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %177 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %178 = stablehlo.add %174, %177 : tensor<4x8x1xf32>
    %179 = stablehlo.rsqrt %178 : tensor<4x8x1xf32>
    %180 = stablehlo.broadcast_in_dim %179, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %181 = stablehlo.multiply %176, %180 : tensor<4x8x16xf32>
    %182 = stablehlo.broadcast_in_dim %arg17, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %183 = stablehlo.broadcast_in_dim %182, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %184 = stablehlo.multiply %181, %183 : tensor<4x8x16xf32>
    %185 = stablehlo.broadcast_in_dim %arg16, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %186 = stablehlo.broadcast_in_dim %185, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %187 = stablehlo.add %184, %186 : tensor<4x8x16xf32>
    %188 = stablehlo.dot_general %187, %arg18, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x32xf32>) -> tensor<4x8x32xf32>
    %189 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %190 = stablehlo.broadcast_in_dim %189, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<4x8x32xf32>
    %191 = stablehlo.add %188, %190 : tensor<4x8x32xf32>
    %192 = stablehlo.multiply %191, %191 : tensor<4x8x32xf32>
    %193 = stablehlo.multiply %192, %191 : tensor<4x8x32xf32>
    %cst_35 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %195 = stablehlo.multiply %194, %193 : tensor<4x8x32xf32>
    %196 = stablehlo.add %191, %195 : tensor<4x8x32xf32>
    %cst_36 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %197 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %198 = stablehlo.multiply %197, %196 : tensor<4x8x32xf32>
    %199 = stablehlo.tanh %198 : tensor<4x8x32xf32>
    %cst_37 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %201 = stablehlo.add %200, %199 : tensor<4x8x32xf32>
    %cst_38 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %202 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %203 = stablehlo.multiply %202, %201 : tensor<4x8x32xf32>
    %204 = stablehlo.multiply %191, %203 : tensor<4x8x32xf32>
    %205 = stablehlo.dot_general %204, %arg19, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x32xf32>, tensor<32x16xf32>) -> tensor<4x8x16xf32>
    %206 = stablehlo.add %163, %205 : tensor<4x8x16xf32>
    %207 = stablehlo.broadcast_in_dim %arg13, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %208 = stablehlo.broadcast_in_dim %207, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %209 = stablehlo.add %206, %208 : tensor<4x8x16xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %210 = stablehlo.reduce(%209 init: %cst_39) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %211 = stablehlo.broadcast_in_dim %210, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_40 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %212 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %213 = stablehlo.divide %211, %212 : tensor<4x8x1xf32>
    %214 = stablehlo.broadcast_in_dim %213, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %215 = stablehlo.subtract %209, %214 : tensor<4x8x16xf32>
    %216 = chlo.square %215 : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %217 = stablehlo.reduce(%216 init: %cst_41) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %218 = stablehlo.broadcast_in_dim %217, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_42 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %219 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %220 = stablehlo.divide %218, %219 : tensor<4x8x1xf32>
    %221 = stablehlo.broadcast_in_dim %213, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %222 = stablehlo.subtract %209, %221 : tensor<4x8x16xf32>
    %cst_43 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %223 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %224 = stablehlo.add %220, %223 : tensor<4x8x1xf32>
    %225 = stablehlo.rsqrt %224 : tensor<4x8x1xf32>
    %226 = stablehlo.broadcast_in_dim %225, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %227 = stablehlo.multiply %222, %226 : tensor<4x8x16xf32>
    %228 = stablehlo.broadcast_in_dim %arg25, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %229 = stablehlo.broadcast_in_dim %228, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %230 = stablehlo.multiply %227, %229 : tensor<4x8x16xf32>
    %231 = stablehlo.broadcast_in_dim %arg24, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %232 = stablehlo.broadcast_in_dim %231, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %233 = stablehlo.add %230, %232 : tensor<4x8x16xf32>
    %234 = stablehlo.dot_general %233, %arg26, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
    %235 = call @log_softmax(%234) : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
    %236 = stablehlo.broadcast_in_dim %arg30, dims = [0, 1] : (tensor<4x8xi32>) -> tensor<4x8x1xi32>
    %237 = call @take_along_axis(%235, %236) : (tensor<4x8x16xf32>, tensor<4x8x1xi32>) -> tensor<4x8x1xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %238 = stablehlo.reduce(%237 init: %cst_44) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x1xf32>, tensor<f32>) -> tensor<f32>
    %cst_45 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %239 = stablehlo.divide %238, %cst_45 : tensor<f32>
    %240 = stablehlo.negate %239 : tensor<f32>
    return %240 : tensor<f32>
  }
  func.func private @tril(%arg0: tensor<8x8xi1>) -> tensor<8x8xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %2 = stablehlo.add %0, %1 : tensor<8x8xi32>
    %3 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<8x8xi1>, tensor<8x8xi1>
    return %6 : tensor<8x8xi1>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<4x2x8x8xf32>, %arg2: tensor<f32>) -> tensor<4x2x8x8xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<4x2x8x8xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x2x8x8xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<4x2x8x8xi1>, tensor<4x2x8x8xf32>
    return %3 : tensor<4x2x8x8xf32>
  }
  func.func private @log_softmax(%arg0: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<4x8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x8x16xf32>
    %6 = stablehlo.exponential %5 : tensor<4x8x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %9 = stablehlo.log %8 : tensor<4x8x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<4x8x16xf32>
    return %11 : tensor<4x8x16xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<4x8x16xf32>, %arg1: tensor<4x8x1xi32>) -> tensor<4x8x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x8x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<4x8x1xi32>, tensor<4x8x1xi32>) -> tensor<4x8x1xi1>
    %c_0 = stablehlo.constant dense<16> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4x8x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<4x8x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<4x8x1xi1>, tensor<4x8x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<4x8x1xi32>) -> tensor<4x8x1x1xi32>
    %c_1 = stablehlo.constant dense<15> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4x8x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<4x8x1x1xi32>, tensor<4x8x1x1xi32>) -> tensor<4x8x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [3] : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x1xi32>) -> tensor<4x8x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<4x8x1x1xi32>, tensor<4x8x1x1xi32>) -> tensor<4x8x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<4x8x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [3] : (tensor<4x8x1x1xi1>, tensor<i1>) -> tensor<4x8x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<4x8x16xf32>, tensor<4x8x1x1xi32>) -> tensor<4x8x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<4x8x1xi1>, tensor<4x8x1xf32>
    return %15 : tensor<4x8x1xf32>
  }
}
