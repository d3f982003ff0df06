//===- Passes.td - StableHLO to TOSA conversion ------------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CONVERSION_STABLEHLOTOTOSA_PASSES_TD
#define PIPEWAVE_CONVERSION_STABLEHLOTOTOSA_PASSES_TD

include "mlir/Pass/PassBase.td"

def StablehloToTosa : Pass<"stablehlo-to-tosa", "::mlir::ModuleOp"> {
  let summary = "Converts the stablehlo/chlo subset to TOSA";
  let description = [{
    Rewrites every `stablehlo` and `chlo` operation into TOSA (with `func`,
    `arith` and `tensor` where TOSA has no operation), so that an imported
    JAX loss meets pipewave's input contract and `pipe-autodiff` can
    differentiate it. Shapes must be static. Run the inliner first: JAX's
    private helpers (`func.call @relu`, ...) are plain functions.

    ```mlir
    %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    // becomes reshapes to 3-D and
    %m = tosa.matmul %a3, %b3, %zp, %zp : (tensor<1x8x4xf32>, tensor<1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
    ```

    An operation it cannot convert (a dynamic shape, a strided slice, a
    gather outside the forms JAX emits, ...) is an error at its location.
  }];
  let dependentDialects = ["::mlir::tosa::TosaDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // PIPEWAVE_CONVERSION_STABLEHLOTOTOSA_PASSES_TD
