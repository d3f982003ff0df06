//===- Pipelines.h - Registered pass pipelines ------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_PIPELINES_PIPELINES_H
#define PIPEWAVE_PIPELINES_PIPELINES_H

#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/Transforms/PassEnums.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace pipewave {

/// Options `pipe-train` and `pipe-compile` share: how the model is cut and
/// scheduled.
template <typename Derived>
struct PipelineScheduleOptions : public mlir::PassPipelineOptions<Derived> {
  template <typename T, typename... Mods>
  using Option =
      typename mlir::PassPipelineOptions<Derived>::template Option<T, Mods...>;

  Option<pipe::PartitionStrategy> strategy{
      *this, "strategy",
      llvm::cl::desc("How to cut: auto, manual, uniform or balanced"),
      llvm::cl::init(pipe::PartitionStrategy::Auto),
      llvm::cl::values(
          clEnumValN(pipe::PartitionStrategy::Auto, "auto",
                     "manual with pipe.split markers, else balanced"),
          clEnumValN(pipe::PartitionStrategy::Manual, "manual",
                     "the pipe.split markers or pipe.stage attributes"),
          clEnumValN(pipe::PartitionStrategy::Uniform, "uniform",
                     "the same number of ops per stage"),
          clEnumValN(pipe::PartitionStrategy::Balanced, "balanced",
                     "the same cost per stage"))};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Schedule: gpipe, 1f1b, interleaved, hanayo, zb-h1, "
                     "zb-v, file or auto"),
      llvm::cl::init("1f1b")};
  Option<int64_t> microbatches{
      *this, "microbatches",
      llvm::cl::desc("Microbatches per step (0: pipe-schedule decides: the "
                     "entry's pipe.microbatches or 1; the file's for file, "
                     "the best for auto)"),
      llvm::cl::init(0)};
  Option<int64_t> chunks{*this, "chunks",
                         llvm::cl::desc("interleaved: stages per rank (0: 2)"),
                         llvm::cl::init(0)};
  Option<int64_t> waves{*this, "waves", llvm::cl::desc("hanayo: waves (0: 1)"),
                        llvm::cl::init(0)};
  Option<std::string> file{*this, "file",
                           llvm::cl::desc("file: the action list to read"),
                           llvm::cl::init("")};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("auto: cpu, v100, a100, h100, h200 or a device .json "
                     "file (empty: h100 for pipe-train; the target's for "
                     "pipe-compile, see defaultDevice)"),
      llvm::cl::init("")};
  Option<std::string> memory{
      *this, "memory",
      llvm::cl::desc("auto: memory budget per device, e.g. 16GiB (default: "
                     "the device's)"),
      llvm::cl::init("")};
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("Name of the entry function"),
                            llvm::cl::init("main")};
};

/// Options of the `pipe-train` pipeline.
struct PipeTrainOptions : public PipelineScheduleOptions<PipeTrainOptions> {
  Option<int64_t> numStages{*this, "num-stages",
                            llvm::cl::desc("Number of pipeline stages (0: from "
                                           "the pipe.split markers)"),
                            llvm::cl::init(0)};
};

/// Appends the compiler flow from the TOSA graph to a verified sched program:
/// pipe-partition, pipe-outline-stages, pipe-insert-comm, pipe-schedule,
/// sched-verify.
void buildPipeTrainPipeline(mlir::OpPassManager &pm,
                            const PipeTrainOptions &options);

/// What `pipe-compile` compiles the stage code for.
enum class CompileTarget { CPU, CUDA };

/// The device `pipe-compile` simulates schedule=auto's candidates on when
/// its `device` option is empty: for the CPU target the machine at hand as
/// pipewave-calibrate measured it (the cached calibration `host`, see
/// pipewave/Simulator/Device.h) when there is one, else the shipped
/// description of a CPU socket (`cpu`, data/devices/cpu.json); an H200 for
/// CUDA.
std::string defaultDevice(CompileTarget target);

/// Where `pipe-compile` stops.
enum class CompileEmit {
  /// Stage functions on tensors with their forward and backward functions,
  /// the composition and the sched.program (pipewave-compile --emit=pipe).
  Pipe,
  /// The stage code lowered for the target (pipewave-compile --emit=mlir).
  MLIR
};

/// Options of the `pipe-compile` pipeline: every option of pipewave-compile
/// that shapes the compiled module, spelled as pass options.
struct PipeCompileOptions : public PipelineScheduleOptions<PipeCompileOptions> {
  Option<int64_t> numStages{
      *this, "num-stages",
      llvm::cl::desc("Pipeline stages (0: as many as the pipe.split markers "
                     "make, else 1; 1: the whole model, markers ignored)"),
      llvm::cl::init(0)};
  Option<int64_t> replicas{
      *this, "replicas",
      llvm::cl::desc("Data-parallel replicas of the pipeline; each takes "
                     "1/replicas of the batch"),
      llvm::cl::init(1)};
  Option<bool> inference{
      *this, "inference",
      llvm::cl::desc("A forward-only step even when the model returns a "
                     "loss"),
      llvm::cl::init(false)};
  Option<pipe::RecomputePolicy> recompute{
      *this, "recompute",
      llvm::cl::desc("Training: what the backward recomputes (pipe-recompute "
                     "policy)"),
      llvm::cl::init(pipe::RecomputePolicy::None),
      llvm::cl::values(
          clEnumValN(pipe::RecomputePolicy::None, "none", "stash everything"),
          clEnumValN(pipe::RecomputePolicy::Full, "full",
                     "stash the stage inputs, recompute the rest"),
          clEnumValN(pipe::RecomputePolicy::Selective, "selective",
                     "recompute the cheap ops"))};
  Option<CompileTarget> target{
      *this, "target", llvm::cl::desc("What the stage code runs on"),
      llvm::cl::init(CompileTarget::CPU),
      llvm::cl::values(
          clEnumValN(CompileTarget::CPU, "cpu", "host CPU code"),
          clEnumValN(CompileTarget::CUDA, "cuda", "NVIDIA GPU kernels"))};
  Option<MatmulLowering> matmul{
      *this, "matmul", llvm::cl::desc("target=cpu: how f32 matmuls run"),
      llvm::cl::init(MatmulLowering::Auto), matmulLoweringValues()};
  ListOption<std::string> matmulChoice{
      *this, "matmul-choice",
      llvm::cl::desc("target=cpu, matmul=auto: rules CLASS:KERNEL choosing "
                     "each matmul class's kernel (empty: the device's "
                     "calibration, else the built-in default; see "
                     "resolveMatmulChoice)")};
  Option<bool> workspace{
      *this, "workspace",
      llvm::cl::desc("target=cpu: stage temporaries in one workspace per "
                     "function, allocated once by the runtime "
                     "(pipe-plan-workspace)"),
      llvm::cl::init(true)};
  Option<bool> accumulate{
      *this, "accumulate",
      llvm::cl::desc("target=cpu: backward functions that add parameter "
                     "gradients to their accumulators after a step's first "
                     "microbatch (pipe-accumulate-gradients)"),
      llvm::cl::init(true)};
  Option<bool> fuseUpdates{
      *this, "fuse-updates",
      llvm::cl::desc("target=cpu: the product that writes a parameter's "
                     "gradient last may run its SGD update "
                     "(pipe-fuse-updates)"),
      llvm::cl::init(true)};
  Option<std::string> cudaArch{
      *this, "cuda-arch",
      llvm::cl::desc("target=cuda: the GPU architecture (sm_<NN>)"),
      llvm::cl::init("sm_90")};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("target=cuda: math mode of the matmuls: fp32, tf32 or "
                     "bf16"),
      llvm::cl::init("fp32")};
  Option<std::string> cudaFormat{
      *this, "cuda-format",
      llvm::cl::desc("target=cuda: kernel image: fatbin, bin (cubin) or isa "
                     "(PTX)"),
      llvm::cl::init("fatbin")};
  Option<std::string> cudaToolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("target=cuda: CUDA toolkit root (empty: the one found "
                     "when pipewave was configured)"),
      llvm::cl::init("")};
  Option<CompileEmit> emit{
      *this, "emit", llvm::cl::desc("Where the pipeline stops"),
      llvm::cl::init(CompileEmit::MLIR),
      llvm::cl::values(
          clEnumValN(CompileEmit::Pipe, "pipe",
                     "stage functions on tensors, their training functions "
                     "and the sched.program"),
          clEnumValN(CompileEmit::MLIR, "mlir",
                     "the stage code lowered for the target"))};
};

/// The kernel choice of matmul=auto that `pipe-compile` lowers with, and
/// what decided it.
struct ResolvedMatmulChoice {
  /// The rules for pipe-lower-to-llvm's matmul-choice (empty: not
  /// matmul=auto on the CPU target).
  std::vector<std::string> rules;
  /// Where they come from, for people (e.g. "the calibration of device
  /// 'host'"); empty when there is no choice to make.
  std::string source;
};

/// The choice for the CPU target with matmul=auto: the matmul-choice option
/// when given; else the measured kernels of the device's calibration
/// ("matmulKernels", written by pipewave-calibrate; the device is the
/// `device` option, else defaultDevice: the cached `host` calibration);
/// else the built-in default (MatmulChoice.h). The same calibration gives
/// the same rules. Fails with `error` for a malformed rule or device file.
mlir::LogicalResult resolveMatmulChoice(const PipeCompileOptions &options,
                                        ResolvedMatmulChoice &out,
                                        std::string &error);

/// Appends pipewave-compile's flow up to the stage functions on tensors:
/// pipe-partition (markers, else one stage, when num-stages is 0),
/// pipe-outline-stages, pipe-microbatch (one microbatch of one replica),
/// pipe-insert-comm, pipe-schedule, sched-verify and, for a training step,
/// pipe-recompute and pipe-autodiff as the sched.program needs them.
void buildPipeCompileFrontEnd(mlir::OpPassManager &pm,
                              const PipeCompileOptions &options);

/// Appends the lowering of the stage code for `options.target`; fails with
/// a message through `error` when this build cannot compile for it.
mlir::LogicalResult buildPipeCompileLowering(
    mlir::OpPassManager &pm, const PipeCompileOptions &options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> error);

/// The `pipe-compile` pipeline: the front end, then (emit=mlir) the lowering.
/// pipewave-compile runs the same two parts.
mlir::LogicalResult buildPipeCompilePipeline(
    mlir::OpPassManager &pm, const PipeCompileOptions &options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> error);

/// Registers the pipewave pipelines (`pipe-train`, `pipe-compile`).
void registerPipelines();

/// Registers every pipewave pass and pipeline.
void registerAllPasses();

/// Adds the pipewave dialects to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace pipewave

#endif // PIPEWAVE_PIPELINES_PIPELINES_H
