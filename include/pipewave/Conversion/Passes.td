//===- Passes.td - Lowering stage functions to native code --*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CONVERSION_PASSES_TD
#define PIPEWAVE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def PipeIsolateStages : Pass<"pipe-isolate-stages", "::mlir::ModuleOp"> {
  let summary = "Keeps only the stage functions for lowering";
  let description = [{
    First step of `pipe-lower-to-llvm`. The runtime composes the stages from
    the model descriptor, so everything but the stage functions (functions
    with `pipe.stage`), the training functions `pipe-autodiff` made for them
    (named by their `pipe.fwd`, `pipe.bwd`, `pipe.bwd_input` and
    `pipe.bwd_weight`) and what those reference is erased: the entry composition with its
    `pipe.send`/`pipe.recv` and the `sched.program` (read them first, as
    `pipewave-compile` does). Stage and training functions become private
    (only their ABI wrappers are visible), the bodies of their
    `pipe.recompute` regions are moved in place (only `pipe-autodiff` needs
    the regions; a trained stage's own function keeps those of
    `pipe-recompute`), and every argument is marked
    `bufferization.writable = false`: the runtime owns argument buffers
    (parameters, data slices, received activations) and stages must not
    write into them.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def PipeLowerDropout : Pass<"pipe-lower-dropout", "::mlir::func::FuncOp"> {
  let summary = "Lowers pipe.dropout to a linalg.generic";
  let description = [{
    Part of the stage lowering (before TOSA is lowered to linalg). Every
    `pipe.dropout` becomes one elementwise `linalg.generic` that computes its
    mask from the counter and the element's index with 64-bit integer
    arithmetic (the hash of include/pipewave/Support/DropoutRng.h) and
    writes `x * 1/(1 - ratio)` where the element is kept, 0 elsewhere. The
    counter's `[seed, step, first sample]` are read through constant
    indexing maps, so the loop nest needs nothing from outside (it maps to
    a GPU kernel like any elementwise loop).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PipeFuseElementwise
    : Pass<"pipe-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuses element-wise linalg ops, keeping matmuls named";
  let description = [{
    Last step of the stage lowering's front (after TOSA is lowered to
    linalg): the patterns of upstream `linalg-fuse-elementwise-ops` (one
    loop nest for each chain of element-wise `linalg.generic`s, reshapes
    propagated through linalg ops by expanding their loops, constant
    folding), with one restriction: a `tensor.collapse_shape` or
    `tensor.expand_shape` is never folded into, or through, a named
    contraction (`linalg.batch_matmul`, `linalg.matmul` and the other ops
    of `ContractionOpInterface`). Folding the attention's head split
    (`[2, 4, 64, 32] -> [8, 64, 32]`) into the batch matmul it feeds would
    turn the matmul into a 4-D `linalg.generic` that neither
    `pipe-matmul-vectorize` nor `pipe-matmul-to-blas` recognises, so it
    would run as scalar loops. The reshape stays next to the matmul
    instead (a view after bufferization):

    ```mlir
    %h = tensor.collapse_shape %t [[0, 1], [2], [3]]
        : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
    %s = linalg.batch_matmul ins(%h, %k : tensor<8x64x32xf32>,
        tensor<8x32x64xf32>) outs(%z : tensor<8x64x64xf32>)
        -> tensor<8x64x64xf32>
    // stays as it is (linalg-fuse-elementwise-ops makes one generic of it)
    ```

    As in the upstream pass, a producer is fused only into its single user.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PipeAccumulateGradients
    : Pass<"pipe-accumulate-gradients", "::mlir::ModuleOp"> {
  let summary = "Adds the accumulating variants of the backward functions";
  let description = [{
    Runs on the tensor-level stage functions in `pipe-lower-to-llvm`, after
    TOSA became linalg and before bufferization. For every stage with
    `pipe.bwd` (and `pipe.bwd_weight`) it adds a copy of that function,
    `@<name>_acc`, named by `pipewave.bwd_acc` (`pipewave.bwd_weight_acc`)
    on the stage function, in which parameter gradients add to what the
    caller passes instead of to zeros. The runtime calls the copy for the
    microbatches of a step after the first, passing each gradient's
    accumulator, so a weight gradient is one GEMM with beta = 1 on the
    accumulator instead of a GEMM into a temporary and an addition.

    A result can accumulate when it is the gradient of a `pipe.param`
    argument (every result of `pipe.bwd_weight` is), used only by the
    return, and made (through `tensor.collapse_shape`/`expand_shape`) by
    a plain f32 `linalg.matmul`/`batch_matmul` or a `linalg.generic` whose
    payload only adds to the init, on a zero `linalg.fill`. The copy takes
    one more argument per such result, last, of the result's type, with
    `pipewave.accumulates = r` (the result's index) and
    `bufferization.writable = true`; the op's init becomes that argument
    (reshaped back) and the fill goes. The result is still returned: after
    bufferization it is the argument's own buffer, and `pipe-stage-abi`
    passes the result buffer for both. Other results are left as they are.

    ```mlir
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x128xf32>) -> ...
    %g = linalg.batch_matmul ins(%a, %b : ...) outs(%f : ...) -> ...
    return %g : tensor<1x64x128xf32>
    // in @bwd_acc(..., %acc: tensor<1x64x128xf32>
    //                  {bufferization.writable = true,
    //                   pipewave.accumulates = 0 : i64}):
    %g = linalg.batch_matmul ins(%a, %b : ...) outs(%acc : ...) -> ...
    return %g : tensor<1x64x128xf32>
    ```

    Stages with no such result get no copy.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def PipeUniqueResultBuffers
    : Pass<"pipe-unique-result-buffers", "::mlir::func::FuncOp"> {
  let summary = "Gives every returned allocation its own result buffer";
  let description = [{
    Runs on bufferized functions, right before
    `buffer-results-to-out-params{hoist-static-allocs}` in
    `pipe-lower-to-llvm`. A function that returns the same `memref.alloc`
    more than once (the `bwd_input` function of `pipe-autodiff{split=true}`
    returns an input gradient both as a result and in the stash it hands to
    `bwd_weight`) makes that pass replace the allocation by the first
    out-parameter, erase it, and then use the erased operation for the
    second one (a crash in MLIR 22). Every repeated return operand defined by a `memref.alloc`
    is replaced here by a fresh allocation of the same type that the value
    is copied into, so each result owns its buffer:

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    return %a, %a : memref<4xf32>, memref<4xf32>
    // becomes
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    return %a, %b : memref<4xf32>, memref<4xf32>
    ```

    Other repeated operands (function arguments, views) are left alone: the
    out-parameter rewrite copies them.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def PipeMatmulToBlas : Pass<"pipe-matmul-to-blas", "::mlir::ModuleOp"> {
  let summary = "Calls BLAS for f32 matmuls on buffers";
  let description = [{
    Rewrites every `linalg.batch_matmul` and `linalg.matmul` on f32 memrefs
    (default indexing maps) into a call of the runtime helper
    `pw_sgemm_batched` / `pw_sgemm` (provided by libpipewave_cpu_kernels,
    calling OpenBLAS `cblas_sgemm`, or for products of few rows on a CPU
    with AVX-512 pipewave's own kernel), passing the operands as strided memrefs
    so that any row- or column-major view is accepted. A `linalg.fill` of
    zero that initialises the output right before the matmul is folded into
    the call (beta = 0). An operand copied by a `linalg.transpose` that swaps
    the last two dimensions (the weight and activation transposes of
    pipe-autodiff's backward) is read through a strided `memref.transpose`
    view of the source instead, which the helper hands to BLAS as a
    transposed operand: no copy, no temporary.

    A zero-filled product that nothing reads but one element-wise
    `linalg.generic` adding a per-column bias and then clamping
    (`arith.addf`, an optional `arith.minimumf` with a constant, an optional
    `arith.maximumf` with a constant: TOSA's matmul, add and clamp of a
    linear layer and its ReLU) is written through that op instead, straight
    into its result: `pw_sgemm_batched_bias_clamp` / `pw_sgemm_bias_clamp`
    take the bias and the clamps (+inf / -inf where the op has none) and
    compute the same operations in the same order, so the numbers are the
    same bits; the product's buffer and the element-wise pass over it go.
    Likewise ReLU's backward on an input gradient, a `linalg.generic` that
    keeps the product where another buffer of its shape is `> 0` and writes
    `+0` elsewhere (`arith.cmpf ogt`, `arith.select`):
    `pw_sgemm_batched_positive_mask` / `pw_sgemm_positive_mask`. The call
    takes the element-wise op's place, which is allowed when nothing in
    between may write the product's operands. The packed kernel applies
    either to each tile of C right after storing it. Runs after
    bufferization.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def PipeFuseUpdates : Pass<"pipe-fuse-updates", "::mlir::ModuleOp"> {
  let summary = "Lets the product that writes a parameter's gradient last "
                "also update the parameter";
  let description = [{
    Runs after `pipe-matmul-to-blas`, before `pipe-plan-workspace`. In the
    backward function of a stage (`pipe.bwd`) and its accumulating variant
    (`pipewave.bwd_acc`), a `pw_sgemm_batched` / `pw_sgemm` call whose
    result is the whole gradient of a trained parameter (the out-parameter
    of result `i`, or the accumulator `pipewave.accumulates = i`, where the
    stage's `pipe.grad_args[i]` is a `pipe.param` argument) becomes
    `pw_sgemm_batched_update` / `pw_sgemm_update`, which also takes the
    parameter:

    ```mlir
    call @pw_sgemm_batched(%beta, %xT, %dy, %dw)
    // becomes
    call @pw_sgemm_batched_update(%beta, %xT, %dy, %dw, %w)
    ```

    When the runtime has armed an SGD update for that gradient and
    parameter (`pw_fused_update`, `pipewave-runtime/model.h`), the product
    updates the parameter from the gradient right after computing it;
    otherwise it is the same product. It may do so only if nothing after
    it in the function reads the parameter or writes the gradient: a call
    followed by reads of the parameter (the input gradient's product, which
    reads it transposed) moves to right after the last of them, when nothing
    in between writes its operands or touches the gradient. A product in a
    loop, one with a parameter written in the function, or one followed by
    another write of the gradient (a parameter used twice) stays a plain
    product. The copy from an accumulator into its own out-parameter, which
    `pipe-stage-abi` erases, does not count as a write.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def PipePlanWorkspace : Pass<"pipe-plan-workspace", "::mlir::ModuleOp"> {
  let summary = "Places the temporaries of every stage function in one "
                "workspace buffer planned at compile time";
  let description = [{
    Runs on bufferized functions after deallocation, right before
    `pipe-stage-abi` in `pipe-lower-to-llvm` and `pipe-lower-to-gpu`. In every function defined in
    the module that nothing in the module calls (the stage and training
    functions the ABI wrappers will call), each `memref.alloc` in the entry
    block with a static shape, the identity layout and the default memory
    space whose buffer does not escape becomes a `memref.view` into one
    workspace buffer, and its `memref.dealloc`s are erased:

    ```mlir
    %a = memref.alloc() {alignment = 64 : i64} : memref<8x64xf32>
    ...
    memref.dealloc %a : memref<8x64xf32>
    // becomes, with a new last argument %ws: memref<Nxi8> {pipewave.workspace}
    %c0 = arith.constant 0 : index
    %a = memref.view %ws[%c0][] : memref<Nxi8> to memref<8x64xf32>
    ```

    Offsets come from liveness-based interval packing: an allocation is
    live from its position in the entry block to the last operation (or the
    operation containing it) that uses it or a view of it (casts, reshapes,
    subviews, transposes); allocations whose live ranges do not overlap may
    share bytes. Allocations are placed largest first at the lowest offset,
    a multiple of `alignment` (and of the allocation's own alignment), that
    overlaps no placed allocation live at the same time.

    The workspace is a new last argument `memref<Nxi8>` marked
    `pipewave.workspace`, and the function gets `pipewave.workspace_bytes`
    (N, i64); `pipe-stage-abi` records N by wrapper name in the module
    attribute `pipewave.workspaces` and loads the workspace pointer after
    the function's other arguments (the last entry of `args`), and the runtime allocates the buffer once and
    passes it on every call (pipewave-runtime/model.h). A function with no
    allocation to place is left unchanged.

    Left as they are (counted in the statistics, and in the remark that
    `report` emits per function): allocations that escape (returned,
    yielded out of a region, stored, or flowing into an operation that is
    not a view and makes a new memref), allocations with dynamic sizes, a
    layout or a memory space, and allocations nested in a region (loops).

    With `stack-scalars` (set by the CPU pipeline, `pipe-lower-to-llvm`), a
    0-d allocation (one value, such as a loss's scale) that would be placed
    becomes a `memref.alloca` instead: on the stack, apart from the
    workspace, so LLVM knows that a loop storing into the workspace does
    not change it, hoists its load and vectorises the loop (the loss
    gradient of a stage reads such a value for every element). The GPU
    pipeline leaves it off: its buffers are device memory.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Byte alignment of every offset and of the workspace size">,
    Option<"stackScalars", "stack-scalars", "bool", /*default=*/"false",
           "Put the 0-d allocations that would be placed on the stack "
           "(memref.alloca) instead (host code only)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per function: workspace bytes, allocations placed "
           "and allocations kept">,
  ];
  let statistics = [
    Statistic<"numPlaced", "placed-allocs",
              "Allocations placed in a workspace">,
    Statistic<"numStacked", "stacked-allocs",
              "0-d allocations put on the stack (stack-scalars)">,
    Statistic<"numEscaping", "escaping-allocs",
              "Allocations kept because their buffer escapes">,
    Statistic<"numDynamic", "dynamic-allocs",
              "Allocations kept because of dynamic sizes, a layout or a "
              "memory space">,
    Statistic<"numNested", "nested-allocs",
              "Allocations kept because they are nested in a region">,
    Statistic<"workspaceBytes", "workspace-bytes",
              "Workspace bytes, summed over the functions">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def PipeStageABI : Pass<"pipe-stage-abi", "::mlir::ModuleOp"> {
  let summary = "Adds the runtime ABI wrapper of every stage function";
  let description = [{
    Runs on bufferized stage functions whose results became out-parameters
    (`buffer-results-to-out-params{add-result-attr}`; memrefs with identity
    layout). For stage k it adds the public function

      void pw_stage<k>_forward(void *const *args, void *const *results)

    (the runtime's `pw_stage_fn`): it loads the buffer pointer of every
    argument and result, builds their memref descriptors with the static
    shapes and calls the stage function, which gets internal linkage (only
    its wrapper is exported). Result buffers are preallocated by the caller.

    A stage differentiated by `pipe-autodiff` gets one wrapper per training
    function instead, each calling the function its attribute names:
    `<prefix><k>_forward` calls `pipe.fwd` (results, then the stash),
    `<prefix><k>_backward` calls `pipe.bwd`, and `<prefix><k>_backward_input`
    / `<prefix><k>_backward_weight` call `pipe.bwd_input` / `pipe.bwd_weight`
    when present. `args` holds the called function's arguments in order and
    `results` its results in order (pipewave-runtime/model.h).

    The accumulating variants of `pipe-accumulate-gradients`
    (`pipewave.bwd_acc`, `pipewave.bwd_weight_acc`) get
    `<prefix><k>_backward_acc` / `<prefix><k>_backward_weight_acc`. Their
    arguments marked `pipewave.accumulates = r` are not in `args`: the
    wrapper passes result buffer `r` for them, so the function adds to what
    the caller left there, and the copy of such an argument into its own
    result buffer is erased. The module attribute `pipewave.accumulating`
    records, by wrapper name, an `array<i32>` with a 1 for every result that
    accumulates.
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", /*default=*/"\"pw_stage\"",
           "Symbol prefix of the wrappers (<prefix><k>_forward)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect"];
}

def PipeMatmulVectorize : Pass<"pipe-matmul-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Tiles and vectorizes f32 matmuls on tensors";
  let description = [{
    The MLIR alternative to `pipe-matmul-to-blas`: every statically shaped
    f32 `linalg.batch_matmul` / `linalg.matmul` is tiled for the caches
    (`mc` x `nc` x `kc`, loops n, k, m), then for registers (`mr` x `nr`),
    then by 1 along k, and the innermost [mr, 1] x [1, nr] product is
    vectorized to a `vector.contract` (an outer product per k step). Tile
    sizes shrink to divisors of the matmul's sizes; a matmul whose column
    tile would be narrower than `min-nr` is left alone. Run
    `pipe-hoist-vector-transfers` after bufferization so that the
    accumulator tile stays in registers across the k loop, and lower
    contractions to outer products (`convert-vector-to-llvm`
    `vector-contract-lowering=outerproduct`).

    With `choice` (matmul=auto of `pipe-lower-to-llvm`), only the matmuls
    whose class the choice gives to `vector` are tiled; the others stay for
    `pipe-matmul-to-blas`. A matmul's class is its layout (`nn`, or `tn` /
    `nt` / `tt` when its A / B / both operands are `linalg.transpose` copies
    swapping the last two dimensions) and its shape (`small`, `skinny-m`,
    `skinny-n`, `skinny-k`, `square`; pipewave/Conversion/MatmulChoice.h).
    The rules `CLASS:KERNEL` (kernel `vector` or `blas`, `*` for a class's
    layout or shape) apply in order to the built-in default table (`blas`
    for `nt-skinny-m`, `tn-skinny-n` and `tt-*`, `vector` for the others:
    what pipewave-calibrate measured on the build machine). A malformed
    rule is an error. Example:
    `pipe-matmul-vectorize{min-nr=8 choice=*:blas,nn-square:vector}`.
  }];
  let options = [
    Option<"mr", "mr", "int64_t", /*default=*/"8", "Register tile rows">,
    Option<"nr", "nr", "int64_t", /*default=*/"32", "Register tile columns">,
    Option<"mc", "mc", "int64_t", /*default=*/"64", "Cache tile rows">,
    Option<"nc", "nc", "int64_t", /*default=*/"256", "Cache tile columns">,
    Option<"kc", "kc", "int64_t", /*default=*/"256", "Cache tile depth">,
    Option<"minNr", "min-nr", "int64_t", /*default=*/"1",
           "Leave a matmul alone (for pipe-matmul-to-blas) when its register "
           "tile gets fewer columns than this">,
    ListOption<"choice", "choice", "std::string",
           "Rules CLASS:KERNEL choosing vector or blas per matmul class "
           "(empty: vector for every matmul)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def PipeHoistVectorTransfers
    : Pass<"pipe-hoist-vector-transfers", "::mlir::func::FuncOp"> {
  let summary = "Hoists loop-invariant vector transfers on buffers";
  let description = [{
    Applies `linalg::hoistRedundantVectorTransfers`: a transfer_read /
    transfer_write pair of the same buffer slice in a loop (the accumulator
    tile of a vectorized matmul's k loop) moves out of the loop and the
    vector is carried in a register. Runs after bufferization.
  }];
}

def PipeLowerVectors : Pass<"pipe-lower-vectors", "::mlir::func::FuncOp"> {
  let summary = "Lowers n-D vector ops of vectorized matmuls towards LLVM";
  let description = [{
    Drops leading unit dimensions, lowers `vector.contract` to outer products
    and those to FMAs, lowers transposes, broadcasts, shape casts and
    reductions, and turns transfers of rank 1 into loads and stores.
    Followed by `convert-vector-to-scf{full-unroll}` for the remaining n-D
    transfers and `convert-vector-to-llvm`.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// pipe-lower-to-gpu: stage functions as CUDA kernels and host launches
//===----------------------------------------------------------------------===//

def PipeGpuStreamArgs : Pass<"pipe-gpu-stream-args", "::mlir::ModuleOp"> {
  let summary = "Threads the CUDA stream through every function";
  let description = [{
    Runs in `pipe-lower-to-gpu` after `pipe-stage-abi`. Every function
    defined in the module gets a trailing `!llvm.ptr {pipewave.stream}` argument
    (the `cudaStream_t` the stage runs on) and passes it on to every call of
    a function defined in the module. The ABI wrappers thus become

      void pw_stage<k>_forward(void *const *args, void *const *results,
                               void *stream);

    with device pointers in `args` and `results`. Kernel launches, cuBLAS
    calls and temporaries of the function use that stream.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect"];
}

def PipeMatmulToCublas : Pass<"pipe-matmul-to-cublas", "::mlir::ModuleOp"> {
  let summary = "Calls cuBLAS (pw_cuda_sgemm) for f32 matmuls on buffers";
  let description = [{
    Rewrites every f32 contraction on buffers with one m, one n and one k
    loop and any batch loops (`linalg.matmul`, `linalg.batch_matmul`, and
    the `linalg.generic` products reshape fusion makes, such as 4-D
    attention products, when their batches are evenly spaced in memory)
    into a call of the launch layer's

      void pw_cuda_sgemm(i32 precision, i32 transA, i32 transB,
                         i64 m, i64 n, i64 k, ptr A, i64 lda, i64 strideA,
                         ptr B, i64 ldb, i64 strideB, f32 beta,
                         ptr C, i64 ldc, i64 strideC, i64 batch, ptr stream)

    on the function's stream (`pipe-gpu-stream-args`). Row-major operands
    pass their row stride as leading dimension; an operand that is a
    transposed view (strides [1, ld]) passes `trans = 1`, and a
    `linalg.transpose` of the last two dimensions whose buffer only feeds
    the matmul is folded into such a view (the transposed forms
    `pipe-autodiff` produces): no copies. A `linalg.fill` of zero right
    before the matmul becomes beta = 0. `precision` selects the math mode
    (fp32, tf32 or bf16). Matmuls it cannot express stay for
    `pipe-gpu-map-kernels`.
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "Math mode of the matmuls: fp32, tf32 or bf16">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def PipeGpuMapKernels : Pass<"pipe-gpu-map-kernels", "::mlir::ModuleOp"> {
  let summary = "Maps linalg ops on buffers to pipewave's own GPU kernels";
  let description = [{
    Replaces every linalg op and `memref.copy` in the functions of the
    module by a kernel and its `gpu.launch_func` (named ops are generalized
    first). All kernels of stage k go into one `gpu.module
    @pw_stage<k>_kernels` (the stage of a training function is the stage
    that names it). The mapping, per `linalg.generic`:

    - only parallel loops (element-wise, broadcast, transpose, copy, fill,
      gather): a 1-D grid-stride kernel, one thread per element;
    - reductions with one output combined by addf, mulf, maximumf,
      minimumf, maxnumf or minnumf (sums and maxima over the last dimension:
      softmax, layer norm, losses): one block per output element, its
      threads striding over the reduced elements, combined with
      `gpu.all_reduce`;
    - other reductions: one thread per output element.

    A `linalg.fill` of a constant into the output of the reduction right
    after it is folded into that reduction's kernel (its initial value).

    Memref globals read by the host (constants) are copied into the stage's
    `gpu.module` as device globals; the host's `memref.get_global` is tagged
    with the module (`pipewave.gpu_module`) for `pipe-gpu-host-to-calls`.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def PipeVerifyGpuMapping : Pass<"pipe-verify-gpu-mapping", "::mlir::ModuleOp"> {
  let summary = "Rejects computation left on the host by the GPU mapping";
  let description = [{
    Runs after `pipe-gpu-map-kernels`. In every function outside a
    `gpu.module`, any linalg op, loop (scf, affine), `memref.load`,
    `memref.store`, `memref.copy` or vector transfer is an error: host code
    may only allocate, take views of, launch on and call with device
    buffers. Catches what the generic parallel-loop mapping silently leaves
    on the host.
  }];
}

def PipeGpuHostToCalls : Pass<"pipe-gpu-host-to-calls", "::mlir::ModuleOp"> {
  let summary = "Lowers GPU host code to calls of the launch layer";
  let description = [{
    Runs after `gpu-module-to-binary`. Each `gpu.binary` becomes a constant
    byte array (NUL-terminated) with one library cache slot, each
    `gpu.launch_func` a call

      pw_cuda_launch(&library_slot, &kernel_slot, image, "name", grid,
                     block, 0, args, stream)

    (bare pointers for memrefs, on the function's stream), the
    `memref.alloc` / `memref.dealloc` that `pipe-plan-workspace` left
    calls of `pw_cuda_alloc` / `pw_cuda_free` (stream ordered), and a tagged `memref.get_global` a call of
    `pw_cuda_global`. The launch layer loads each image once and creates no
    streams and no synchronisation.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // PIPEWAVE_CONVERSION_PASSES_TD
