//===- CPU.h - Compiled models for the CPU runtime --------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// What pipewave-compile needs besides the MLIR passes: the description of a
// pipelined module that the runtime reads (pw_model of
// pipewave-runtime/model.h), emitting it as LLVM globals next to the stage
// code, native object code for the host, and linking the executable with
// the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TARGET_CPU_H
#define PIPEWAVE_TARGET_CPU_H

#include "pipewave/Schedule/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
class raw_pwrite_stream;
} // namespace llvm

namespace pipewave::target {

/// pw_tensor_info.
struct TensorDesc {
  std::string name;
  int32_t dtype = 0; ///< pw_dtype
  std::vector<int64_t> shape;
};

/// pw_stage; functions by symbol name (void (void *const *, void *const *)),
/// empty for none.
struct StageDesc {
  std::vector<TensorDesc> args;
  std::vector<int32_t> argSource; ///< pw_arg_source
  std::vector<int32_t> argIndex;
  std::vector<TensorDesc> results;
  std::string forwardSymbol;
  // Training (pipe-autodiff); empty for inference.
  std::vector<TensorDesc> stash;
  std::vector<int32_t> resultHasGrad;
  std::vector<int32_t> gradArgs;
  std::string backwardSymbol;
  std::string backwardInputSymbol;
  std::string backwardWeightSymbol;
  std::vector<TensorDesc> wstash;
  /// Per wstash value: -1 (computed by the input half) or the argument of
  /// the input half it is (pipe.wstash_args).
  std::vector<int32_t> wstashSource;
  /// Stage arguments the forward returns new values of, after the stash.
  std::vector<int32_t> stateArgs;
  /// Workspace bytes of each function (pipe-plan-workspace); 0: none.
  int64_t forwardWorkspace = 0;
  int64_t backwardWorkspace = 0;
  int64_t backwardInputWorkspace = 0;
  int64_t backwardWeightWorkspace = 0;
  /// The accumulating variants (pipe-accumulate-gradients), empty for none,
  /// their workspaces, and per grad arg which of them accumulate it (bit 0:
  /// backward, bit 1: backward_weight); empty when neither exists.
  std::string backwardAccSymbol;
  std::string backwardWeightAccSymbol;
  int64_t backwardAccWorkspace = 0;
  int64_t backwardWeightAccWorkspace = 0;
  std::vector<int32_t> gradAccumulates;
};

/// pw_model.
struct ModelDesc {
  std::string name;
  std::string schedule;
  int32_t numMicrobatches = 1;
  std::vector<TensorDesc> inputs;
  std::vector<int32_t> inputIsParam;
  /// 1 for the data input marked `pipe.counter` (the runtime fills it with
  /// the step counter), 0 for the others; empty: the model has none.
  std::vector<int32_t> inputIsCounter;
  std::vector<TensorDesc> outputs;
  std::vector<int32_t> outputCombine; ///< pw_output_combine
  std::vector<StageDesc> stages;
  schedule::Program program;
  /// pw_device_kind: PW_DEVICE_CUDA for stage code compiled with
  /// --target cuda (wrappers taking a stream), else PW_DEVICE_HOST.
  int32_t device = 0;
  /// The model's own parameter values, a safetensors file name relative to
  /// the executable's directory (pw_model::weights_file); empty: none.
  std::string weightsFile;
};

/// Reads the description of a module after pipe-outline-stages,
/// pipe-microbatch, pipe-insert-comm and pipe-schedule: the entry `entry`
/// (global shapes, `pipe.name` of arguments and results, parameters,
/// `pipe.combine`), its stage calls
/// (argument sources, microbatch shapes) and the sched.program. Stage k's
/// forward is `<wrapperPrefix><k>_forward`. For a training step (a program
/// that is not forward-only) the stage functions must carry pipe-autodiff's
/// attributes: the stash is what `@S_fwd` returns after the stage's results,
/// result_has_grad marks the float results, grad_args is `pipe.grad_args`,
/// the backward is `<wrapperPrefix><k>_backward` and, when the program has
/// I/W actions, `_backward_input` / `_backward_weight` with the weight stash
/// (the arguments of `@S_bwd_weight`), each value an argument of
/// `@S_bwd_input` passed through or the next it returns after the
/// activation gradients (`pipe.wstash_args`). Errors are emitted on the IR.
mlir::FailureOr<ModelDesc> readModelDesc(mlir::ModuleOp module,
                                         llvm::StringRef entry,
                                         llvm::StringRef modelName,
                                         llvm::StringRef wrapperPrefix);

/// Sets the workspace sizes of `desc`'s stage functions from the module
/// attribute `pipewave.workspaces` (wrapper name -> bytes) that
/// pipe-stage-abi records for functions with a workspace
/// (pipe-plan-workspace); a wrapper it does not name has none.
void readWorkspaceSizes(mlir::ModuleOp module, ModelDesc &desc);

/// Sets the accumulating variants of `desc`'s backward functions from the
/// module attribute `pipewave.accumulating` (wrapper name -> which results
/// accumulate) that pipe-stage-abi records for the variants of
/// pipe-accumulate-gradients; a stage with none keeps none. Call after
/// readWorkspaceSizes.
void readAccumulatingVariants(mlir::ModuleOp module, ModelDesc &desc);

/// Adds the constant `pw_model` for `desc` to `module`, with
/// `const pw_model *pw_get_model(void)`, and, when `withMain`,
/// `int main(int argc, char **argv)` calling `pw_runtime_main`. The stage
/// wrappers must be defined or declared in `module`. The struct layouts are
/// checked against the C header for the module's data layout; returns false
/// with `error` set on a mismatch.
bool emitModelDescriptor(llvm::Module &module, const ModelDesc &desc,
                         bool withMain, std::string &error);

/// Sets `module`'s triple and data layout for the host CPU, optimizes it at
/// `optLevel` (0-3) and, when `os` is given, writes a native object file.
bool optimizeAndEmitObject(llvm::Module &module, unsigned optLevel,
                           llvm::raw_pwrite_stream *os, std::string &error);

/// Prepares `module` for the host (triple, data layout) without emitting.
bool setHostTarget(llvm::Module &module, std::string &error);

/// How linkExecutable finds its tools and libraries.
struct LinkOptions {
  /// The C++ compiler driver; empty: c++, else mpicxx, found on PATH.
  std::string driver;
  /// The runtime library or object to link; empty: what the runtime's build
  /// recorded in `libDir`/pipewave_runtime.link, else
  /// `libDir`/libpipewave_runtime.{a,so}.
  std::string runtimeLib;
  /// Where the runtime and libpipewave_cpu_kernels.a are (the tool's
  /// <bindir>/../lib).
  std::string libDir;
  /// More arguments for the driver.
  std::vector<std::string> extraArgs;
  /// Stage code compiled with --target cuda: also link the CUDA device of
  /// the runtime and the launch layer, as `libDir`/pipewave_runtime_cuda.link
  /// lists them (written only by builds that found the CUDA toolkit).
  bool cuda = false;
};

/// Links `object` into the executable `output` with the runtime, the CPU
/// kernels, OpenBLAS and libm. Returns false with `error` set (naming the
/// command when the driver fails).
bool linkExecutable(const std::string &object, const std::string &output,
                    const LinkOptions &options, std::string &error);

} // namespace pipewave::target

#endif // PIPEWAVE_TARGET_CPU_H
