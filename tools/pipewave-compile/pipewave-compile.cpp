//===- pipewave-compile.cpp - Model in, runnable binary out ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
//   pipewave-compile MODEL.mlir|MODEL.onnx -o OUT --stages S --microbatches M
//                    --schedule NAME [--chunks C] [--waves W]
//                    [--strategy ...] [--target cpu]
//                    [--inference] [--replicas R]
//                    [--emit=pipe|mlir|llvm|obj|exe] [-O0..3]
//                    [--recompute none|full|selective]
//
// A thin driver: it reads the model (TOSA MLIR, or ONNX through the
// importer), runs the registered `pipe-compile` pipeline of lib/Pipelines
// (pipewave-opt runs the same one, pass for pass) and writes what --emit
// asks for:
// 1. the front end of pipe-compile (--emit=pipe stops here);
// 2. the model descriptor (pw_model) is read from that module;
// 3. the lowering of pipe-compile for the target (--emit=mlir);
// 4. translation to LLVM IR, the descriptor as LLVM globals, main(),
//    optimization for the host (--emit=llvm), an object file (--emit=obj);
// 5. linking with the runtime (pipewave/Target/CPU.h, --emit=exe); with
//    --target cuda also with the runtime's CUDA device and launch layer.
//
// Diagnostics carry the model's file:line:col and the source line, without
// an IR dump (--debug-ir adds it); the exit code is non-zero on
// any error. MLIR's --mlir-* options are available. After a successful
// compile of an executable a summary of what it made goes to stderr
// (CompileReport.h: --quiet, --summary-json, --device; MatmulOptions.h:
// --matmul, --matmul-choice).
//
//===----------------------------------------------------------------------===//

#include "CompileReport.h"
#include "MatmulOptions.h"
#include "ReadModel.h"

#include "pipewave-runtime/model.h"
#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/FrozenParameters.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"
#include "pipewave/Import/StableHLOImporter.h"
#include "pipewave/Pipelines/Pipelines.h"
#include "pipewave/Schedule/Registry.h"
#include "pipewave/Target/CPU.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlir;

namespace {

cl::OptionCategory category("pipewave-compile options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<model.mlir|model.onnx>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile(
    "o",
    cl::desc("Output file (default: a.out for exe, <model>.o for obj, "
             "stdout for text)"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
cl::opt<int64_t> numStages(
    "stages",
    cl::desc("Pipeline stages (default: as many as the pipe.split markers "
             "make, else 1; 1 compiles the unpartitioned model, ignoring "
             "markers)"),
    cl::init(0), cl::cat(category));
cl::opt<int64_t> numMicrobatches(
    "microbatches",
    cl::desc("Microbatches per step (default: the model's pipe.microbatches, "
             "else 1)"),
    cl::init(0), cl::cat(category));
cl::opt<std::string> scheduleName(
    "schedule",
    cl::desc("Schedule, as pipe-schedule names it: gpipe, 1f1b, interleaved, "
             "hanayo, zb-h1, zb-v or auto"),
    cl::init("1f1b"), cl::cat(category));
cl::opt<int64_t> numChunks(
    "chunks",
    cl::desc("--schedule interleaved: stages (model chunks) per rank; the "
             "stage count must be a multiple of it (default 2)"),
    cl::init(0), cl::cat(category));
cl::opt<int64_t> numWaves(
    "waves",
    cl::desc("--schedule hanayo: waves, 2 x waves stages per rank; the "
             "stage count must be a multiple of 2 x waves (default 1)"),
    cl::init(0), cl::cat(category));
cl::opt<int64_t> numReplicas(
    "replicas",
    cl::desc("Data-parallel replicas: R copies of the pipeline on R times "
             "the schedule's ranks, all-reducing each stage's gradients "
             "before the optimizer step; each replica takes 1/R of the "
             "global batch"),
    cl::init(1), cl::cat(category));
cl::opt<bool> inference(
    "inference",
    cl::desc("Compile a forward-only (inference) step even when the model "
             "returns a loss: the loss becomes an output, summed over the "
             "microbatches"),
    cl::init(false), cl::cat(category));
cl::opt<std::string> strategy(
    "strategy",
    cl::desc("How to cut the model: auto, manual, uniform or balanced"),
    cl::init("auto"), cl::cat(category));
cl::opt<std::string> recompute(
    "recompute",
    cl::desc("Training steps: what the backward recomputes instead of "
             "stashing (pipe-recompute policy): none, full or selective"),
    cl::init("none"), cl::cat(category));
cl::opt<std::string> entry("entry", cl::desc("Name of the entry function"),
                           cl::init("main"), cl::cat(category));
cl::opt<bool> debugIR(
    "debug-ir",
    cl::desc("With an error, also print the IR of the operation it points at "
             "(MLIR's \"see current operation\" note), for developers"),
    cl::init(false), cl::cat(category));
cl::opt<std::string>
    cudaArch("cuda-arch",
             cl::desc("--target cuda: GPU architecture (default sm_90)"),
             cl::init("sm_90"), cl::cat(category));
cl::opt<std::string> precision(
    "precision",
    cl::desc("--target cuda: math mode of the matmuls: fp32 (default), tf32 "
             "or bf16"),
    cl::init("fp32"), cl::cat(category));
cl::opt<std::string> targetName(
    "target",
    cl::desc("Target: cpu, or cuda (NVIDIA GPU stage code, run by the "
             "runtime's CUDA device)"),
    cl::init("cpu"), cl::cat(category));

enum class Emit { Pipe, MLIR, LLVM, Obj, Exe };
cl::opt<Emit> emit(
    "emit", cl::desc("What to write"), cl::init(Emit::Exe),
    cl::values(
        clEnumValN(Emit::Pipe, "pipe",
                   "MLIR after the pipeline passes: stage functions on "
                   "tensors (with their forward and backward functions for "
                   "a training step), the composition and the "
                   "sched.program"),
        clEnumValN(Emit::MLIR, "mlir",
                   "MLIR after lowering: stage code and ABI wrappers in the "
                   "LLVM dialect"),
        clEnumValN(Emit::LLVM, "llvm",
                   "optimized LLVM IR with the pw_model descriptor and main"),
        clEnumValN(Emit::Obj, "obj", "a native object file"),
        clEnumValN(Emit::Exe, "exe", "a linked executable")),
    cl::cat(category));
cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level (0-3)"),
                           cl::Prefix, cl::init(3), cl::cat(category));
cl::opt<bool> noWorkspace(
    "no-workspace",
    cl::desc("Stage code allocates and frees its temporaries at every call "
             "instead of using one workspace per stage function that the "
             "runtime allocates once (pipe-plan-workspace); --target cpu"),
    cl::init(false), cl::cat(category));
cl::opt<bool> noAccumulate(
    "no-accumulate",
    cl::desc("No accumulating backward functions: the runtime adds every "
             "microbatch's parameter gradients to their accumulators itself "
             "instead of the GEMMs adding them (beta = 1; "
             "pipe-accumulate-gradients); --target cpu"),
    cl::init(false), cl::cat(category));
cl::opt<bool> noFuseUpdates(
    "no-fuse-updates",
    cl::desc("The optimizer updates every parameter after the backward, "
             "instead of the product that writes a parameter's gradient "
             "last running its SGD update (pipe-fuse-updates); --target "
             "cpu"),
    cl::init(false), cl::cat(category));
cl::opt<std::string>
    cxx("cxx",
        cl::desc("C++ compiler driver that links (default: c++, else mpicxx, "
                 "found on PATH)"),
        cl::init(""), cl::cat(category));
cl::opt<std::string> runtimeLib(
    "runtime-lib",
    cl::desc("The runtime to link instead of libpipewave_runtime from "
             "<bindir>/../lib (a library or object file)"),
    cl::init(""), cl::cat(category));
// Which tensors train (docs/onnx.md, "Parameters and constants").
cl::list<std::string>
    frozenGlobs("frozen",
                cl::desc("Freeze the parameters whose names match GLOB: no "
                         "gradient, never updated (repeatable)"),
                cl::value_desc("glob"), cl::cat(category));
cl::list<std::string> linkArgs("link-arg",
                               cl::desc("Extra argument for the link step "
                                        "(repeatable)"),
                               cl::cat(category));

int fail(const Twine &message) {
  WithColor::error(errs(), "pipewave-compile") << message << "\n";
  return 1;
}

/// Directory of this executable.
std::string toolDir(const char *argv0) {
  static int anchor;
  std::string exe = sys::fs::getMainExecutable(argv0, &anchor);
  return sys::path::parent_path(exe).str();
}

std::string defaultOutput() {
  if (!outputFile.empty())
    return outputFile;
  switch (emit) {
  case Emit::Exe:
    return "a.out";
  case Emit::Obj: {
    if (inputFile == "-")
      return "a.o";
    SmallString<128> stem(sys::path::stem(inputFile));
    stem += ".o";
    return std::string(stem);
  }
  default:
    return "-";
  }
}

/// The pipe-compile options of the command line.
void setPipelineOptions(pipewave::PipeCompileOptions &options) {
  options.numStages = numStages;
  options.strategy = *pipewave::pipe::symbolizePartitionStrategy(strategy);
  options.schedule = scheduleName;
  options.microbatches = numMicrobatches;
  options.chunks = numChunks;
  options.waves = numWaves;
  options.replicas = numReplicas;
  options.inference = inference;
  options.recompute = *pipewave::pipe::symbolizeRecomputePolicy(recompute);
  options.entry = entry;
  options.target = targetName == "cuda" ? pipewave::CompileTarget::CUDA
                                        : pipewave::CompileTarget::CPU;
  options.cudaArch = cudaArch;
  options.precision = precision;
  pipewave::compile::setMatmulOptions(options);
  options.workspace = !noWorkspace;
  options.accumulate = !noAccumulate;
  options.fuseUpdates = !noFuseUpdates;
  if (!pipewave::compile::deviceOption().empty())
    options.device = pipewave::compile::deviceOption();
}

/// Runs `build`'s passes on `module` with the --mlir-* pass manager options.
LogicalResult
runPasses(ModuleOp module,
          llvm::function_ref<LogicalResult(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  if (failed(build(pm)))
    return failure();
  return pm.run(module);
}

/// The module as pipewave-opt prints it (with a final newline).
void printModule(ModuleOp module, raw_ostream &os) {
  module.print(os);
  os << "\n";
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);

  // Pass names for --mlir-print-ir-after=... and friends; registered before
  // the pass manager options, which list them.
  mlir::registerAllPasses();
  pipewave::registerAllPasses();
  pipewave::registerConversionPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();

  // The schedules the registry knows.
  std::string scheduleHelp =
      "Schedule: a registered family (" +
      pipewave::schedule::ScheduleRegistry::instance().names() +
      ", or an alias of one) or auto";
  scheduleName.setDescription(scheduleHelp);

  cl::HideUnrelatedOptions({&category, &pipewave::compile::reportCategory(),
                            &pipewave::compile::importCategory()});
  cl::ParseCommandLineOptions(
      argc, argv,
      "pipewave-compile: compiles a TOSA model into a pipeline-parallel "
      "executable\n\n"
      "  pipewave-compile MODEL.mlir|MODEL.onnx -o OUT --stages S\n"
      "                   --microbatches M --schedule NAME [--chunks C]\n"
      "                   [--waves W] [--replicas R] [--inference]\n"
      "                   [--recompute none|full|selective]\n"
      "                   [--emit=pipe|mlir|llvm|obj|exe]\n\n"
      "MLIR's --mlir-* options (--mlir-print-ir-after-all, "
      "--mlir-print-ir-after=PASS, --mlir-timing, ...) are accepted; "
      "--help-hidden lists them.\n");

  if (targetName != "cpu" && targetName != "cuda")
    return fail("--target=" + targetName + ": expected cpu or cuda");
  if (!pipewave::compile::checkMatmulOptions())
    return 1;
  if (recompute != "none" && recompute != "full" && recompute != "selective")
    return fail("--recompute=" + recompute +
                ": expected none, full or selective");
  if (!pipewave::pipe::symbolizePartitionStrategy(strategy))
    return fail("--strategy=" + strategy +
                ": expected auto, manual, uniform or balanced");
  if (optLevel > 3)
    return fail("-O" + Twine(optLevel) + ": expected -O0 to -O3");
  if (numStages < 0)
    return fail("--stages must be at least 1");
  if (numMicrobatches < 0)
    return fail("--microbatches must be at least 1");
  // Shape options the chosen family does not take.
  const pipewave::schedule::ScheduleRegistry &schedules =
      pipewave::schedule::ScheduleRegistry::instance();
  const pipewave::schedule::ScheduleFamily *family =
      schedules.lookup(scheduleName);
  for (auto [option, name] :
       {std::pair(&numChunks, "chunks"), std::pair(&numWaves, "waves")}) {
    if (!option->getNumOccurrences())
      continue;
    if (*option < 1)
      return fail("--" + Twine(name) + " must be at least 1");
    if (!family || family->optionName != name)
      return fail("--" + Twine(name) + " applies to --schedule " +
                  schedules.familiesWithOption(name) + " only");
  }
  if (numReplicas < 1)
    return fail("--replicas must be at least 1");
  if (!pipewave::compile::checkReportOptions())
    return 1;

  DialectRegistry registry;
  registerAllDialects(registry);
  pipewave::registerStableHLOImportDialects(registry);
  registerAllExtensions(registry);
  pipewave::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  // Errors name the model's file:line:col and say what is wrong; the IR
  // dump of the failing operation is for developers (--debug-ir).
  if (!debugIR)
    context.printOpOnDiagnostic(false);

  std::string errorMessage;
  // The parameter values written next to the output, if any: the binary
  // starts from them (pw_model::weights_file).
  std::string weightsWritten;
  auto sourceMgr = std::make_shared<SourceMgr>();
  SourceMgrDiagnosticHandler diagnostics(*sourceMgr, &context);
  pipewave::compile::silenceRemarks(context);
  pipewave::compile::Progress progress;
  progress.phase("read the model");
  pipewave::SummaryInputs summaryInputs;
  OwningOpRef<ModuleOp> module =
      pipewave::compile::readModel(inputFile, defaultOutput(), context,
                                   sourceMgr, summaryInputs, weightsWritten);
  if (!module)
    return 1;

  if (auto main = module->lookupSymbol<func::FuncOp>(entry))
    if (failed(
            pipewave::pipe::freezeParameters(main, frozenGlobs, errorMessage)))
      return fail(errorMessage);

  pipewave::PipeCompileOptions options;
  setPipelineOptions(options);
  auto error = [&](const Twine &message) {
    fail(message);
    return failure();
  };
  progress.phase("partition, schedule, autodiff (pipe-compile's front end)");
  if (failed(runPasses(*module, [&](OpPassManager &pm) {
        pipewave::buildPipeCompileFrontEnd(pm, options);
        return success();
      })))
    return 1;

  // The summary reads the module before the lowering rewrites it and is
  // written once everything else has succeeded.
  std::string output = defaultOutput();
  summaryInputs.entry = entry;
  summaryInputs.device = options.device.empty()
                             ? pipewave::defaultDevice(options.target)
                             : std::string(options.device);
  summaryInputs.deviceReason = "the " + targetName + " target's device";
  summaryInputs.autoSchedule = scheduleName == "auto";
  summaryInputs.recompute = recompute;
  if (!pipewave::compile::resolveAndDescribeMatmul(options, summaryInputs))
    return 1;
  std::optional<pipewave::CompileSummary> summary;
  progress.phase("summary");
  if (!pipewave::compile::summarize(*module, summaryInputs,
                                    emit == Emit::Exe ? output : "", summary))
    return 1;
  auto finish = [&](int rc) {
    progress.phase("");
    if (rc == 0 && summary &&
        !pipewave::compile::writeSummary(*summary, emit == Emit::Exe))
      return 1;
    return rc;
  };
  auto writeText = [&](auto print) -> int {
    std::unique_ptr<ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file)
      return fail(errorMessage);
    print(file->os());
    file->keep();
    return finish(0);
  };
  if (emit == Emit::Pipe)
    return writeText([&](raw_ostream &os) { printModule(*module, os); });

  StringRef modelName =
      inputFile == "-" ? StringRef("<stdin>") : sys::path::filename(inputFile);
  FailureOr<pipewave::target::ModelDesc> desc =
      pipewave::target::readModelDesc(*module, entry, modelName, "pw_stage");
  if (failed(desc))
    return 1;
  if (targetName == "cuda")
    desc->device = PW_DEVICE_CUDA;
  if (!weightsWritten.empty() && sys::fs::exists(weightsWritten) &&
      llvm::is_contained(desc->inputIsParam, 1))
    desc->weightsFile = sys::path::filename(weightsWritten).str();

  progress.phase("lowering of the stage code");
  if (failed(runPasses(*module, [&](OpPassManager &pm) {
        return pipewave::buildPipeCompileLowering(pm, options, error);
      })))
    return 1;
  if (emit == Emit::MLIR)
    return writeText([&](raw_ostream &os) { printModule(*module, os); });
  pipewave::target::readWorkspaceSizes(*module, *desc);
  pipewave::target::readAccumulatingVariants(*module, *desc);

  progress.phase("translation to LLVM IR");
  LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, modelName);
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  if (!pipewave::target::setHostTarget(*llvmModule, errorMessage) ||
      !pipewave::target::emitModelDescriptor(*llvmModule, *desc,
                                             /*withMain=*/true, errorMessage))
    return fail(errorMessage);

  progress.phase("LLVM optimization and code generation");
  if (emit == Emit::LLVM) {
    if (!pipewave::target::optimizeAndEmitObject(*llvmModule, optLevel, nullptr,
                                                 errorMessage))
      return fail(errorMessage);
    return writeText([&](raw_ostream &os) { llvmModule->print(os, nullptr); });
  }

  // The object: the output itself, or a temporary file to link.
  std::string objectPath = output;
  SmallString<256> tempPath;
  if (emit == Emit::Exe) {
    int fd;
    if (std::error_code ec =
            sys::fs::createTemporaryFile("pipewave-compile", "o", fd, tempPath))
      return fail("cannot create a temporary file: " + ec.message());
    sys::fs::closeFile(fd);
    objectPath = std::string(tempPath);
  }
  {
    std::unique_ptr<ToolOutputFile> file =
        openOutputFile(objectPath, &errorMessage);
    if (!file)
      return fail(errorMessage);
    if (!pipewave::target::optimizeAndEmitObject(*llvmModule, optLevel,
                                                 &file->os(), errorMessage))
      return fail(errorMessage);
    file->keep();
  }
  if (emit == Emit::Obj)
    return finish(0);
  progress.phase("link");
  pipewave::target::LinkOptions link;
  link.driver = cxx;
  link.runtimeLib = runtimeLib;
  SmallString<256> libDir(toolDir(argv[0]));
  sys::path::append(libDir, "..", "lib");
  sys::path::remove_dots(libDir, /*remove_dot_dot=*/true);
  link.libDir = std::string(libDir);
  link.extraArgs.assign(linkArgs.begin(), linkArgs.end());
  link.cuda = targetName == "cuda";
  int rc =
      pipewave::target::linkExecutable(objectPath, output, link, errorMessage)
          ? 0
          : fail(errorMessage);
  sys::fs::remove(objectPath);
  return finish(rc);
}
