//===- pipewave-compile.cpp - Model in, runnable binary out
//----------------===//
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
// 1. pipe-partition, pipe-outline-stages, pipe-microbatch, pipe-insert-comm,
//    pipe-schedule (forward-only with --inference), sched-verify
//    (--emit=pipe stops here);
// 2. the model descriptor (pw_model) is read from that module;
// 3. pipe-lower-to-llvm lowers the stage functions (--emit=mlir);
// 4. translation to LLVM IR, the descriptor as LLVM globals, main(),
//    optimization for the host (--emit=llvm), an object file (--emit=obj);
// 5. the system C++ compiler (c++ or mpicxx on PATH) links the executable
//    with libpipewave_runtime (and the libraries its build listed in
//    <bindir>/../lib/pipewave_runtime.link), libpipewave_cpu_kernels,
//    OpenBLAS and libm.
//
// Diagnostics carry the model's file:line:col; the exit code is non-zero on
// any error. MLIR's --mlir-* options are available.
//
//===----------------------------------------------------------------------===//

#include "CPU/CPUTarget.h"
#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"
#include "pipewave/Pipelines/Pipelines.h"
#ifdef PIPEWAVE_HAVE_ONNX
#include "pipewave/Import/OnnxImporter.h"
#endif

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
cl::opt<std::string> targetName("target", cl::desc("Target: cpu"),
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
cl::opt<std::string> matmul(
    "matmul",
    cl::desc("f32 matmuls: auto (vector where the shape tiles well, else "
             "blas), blas (OpenBLAS), vector (MLIR tiling and "
             "vectorization) or loops (plain compiled loops)"),
    cl::init("auto"), cl::cat(category));
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
cl::opt<int64_t> onnxBatchSize(
    "batch-size",
    cl::desc("ONNX input: the value of a symbolic batch dimension (dim 0) of "
             "the graph inputs"),
    cl::init(0), cl::cat(category));
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

/// First existing file among `candidates`, or "".
std::string firstExisting(ArrayRef<std::string> candidates) {
  for (const std::string &path : candidates)
    if (sys::fs::exists(path))
      return path;
  return "";
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

/// Training steps: the forward and backward functions of every stage
/// (pipe-recompute, then pipe-autodiff on the microbatch-specialised stage
/// functions). Runs once the schedule is known: whether the step trains and
/// whether its backward is split into I and W come from the sched.program
/// that pipe-schedule chose (`auto` may pick a zero-bubble schedule).
LogicalResult runAutodiff(ModuleOp module) {
  auto programs = module.getOps<pipewave::sched::ProgramOp>();
  if (programs.empty())
    return success(); // readModelDesc reports it
  pipewave::schedule::Program program =
      pipewave::sched::readProgramOp(*programs.begin()).program;
  if (program.forwardOnly)
    return success();
  bool split = false;
  for (const pipewave::schedule::RankProgram &rank : program.ranks)
    for (const pipewave::schedule::Action &action : rank.actions)
      split |= action.kind == pipewave::schedule::ActionKind::BackwardInput ||
               action.kind == pipewave::schedule::ActionKind::BackwardWeight;

  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  namespace pipe = pipewave::pipe;
  if (recompute != "none") {
    pipe::PipeRecomputeOptions options;
    options.policy = *pipe::symbolizeRecomputePolicy(recompute);
    options.report = false;
    pm.addPass(pipe::createPipeRecompute(options));
  }
  pipe::PipeAutodiffOptions autodiff;
  autodiff.split = split;
  pm.addPass(pipe::createPipeAutodiff(autodiff));
  return pm.run(module);
}

LogicalResult runFrontEnd(ModuleOp module) {
  // --stages: 1 is the unpartitioned model (markers dropped); 0 (the default)
  // takes the markers' count, or 1 without markers.
  SmallVector<Operation *> markers;
  module.walk([&](pipewave::pipe::SplitOp op) { markers.push_back(op); });
  int64_t stages = numStages;
  if (stages == 0 && markers.empty())
    stages = 1;
  if (stages == 1)
    for (Operation *op : markers)
      op->erase();

  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  namespace pipe = pipewave::pipe;
  pipe::PipePartitionOptions partition;
  partition.numStages = stages;
  partition.strategy = *pipe::symbolizePartitionStrategy(strategy);
  partition.entry = entry;
  pm.addPass(pipe::createPipePartition(partition));
  pipe::PipeOutlineStagesOptions outline;
  outline.entry = entry;
  pm.addPass(pipe::createPipeOutlineStages(outline));
  pipe::PipeMicrobatchOptions microbatch;
  microbatch.microbatches = numMicrobatches;
  // With replicas the stage functions compute one microbatch of one
  // replica: 1/(R*M) of the batch, M being --microbatches, else the model's
  // pipe.microbatches, else 1.
  if (numReplicas > 1) {
    int64_t perReplica = numMicrobatches;
    auto fn = module.lookupSymbol<func::FuncOp>(entry);
    if (fn)
      if (auto attr = pipewave::pipe::PipeDialect::MicrobatchesAttrHelper(
                          fn.getContext())
                          .getAttr(fn);
          attr && perReplica == 0)
        perReplica = attr.getInt();
    perReplica = std::max<int64_t>(perReplica, 1);
    microbatch.microbatches = perReplica * numReplicas;
    for (unsigned i = 0; fn && i < fn.getNumArguments(); ++i) {
      auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      if (pipewave::pipe::getParamArgAttr(fn, i) || !type ||
          type.getRank() == 0 || type.isDynamicDim(0) ||
          type.getDimSize(0) % microbatch.microbatches == 0)
        continue;
      int64_t replicas = numReplicas;
      auto name = pipewave::pipe::getNameArgAttr(fn, i);
      return fn.emitError()
             << "pipewave-compile: --replicas " << replicas
             << " x --microbatches " << perReplica << " = "
             << microbatch.microbatches
             << " parts do not divide the batch size " << type.getDimSize(0)
             << " of data input '"
             << (name ? name.getValue().str() : "#" + std::to_string(i))
             << "' (each replica takes 1/" << replicas << " of the batch, in "
             << perReplica << " microbatches)";
    }
  }
  microbatch.entry = entry;
  pm.addPass(pipe::createPipeMicrobatch(microbatch));
  pipe::PipeInsertCommOptions comm;
  comm.entry = entry;
  pm.addPass(pipe::createPipeInsertComm(comm));
  pipe::PipeScheduleOptions schedule;
  schedule.schedule = scheduleName;
  schedule.microbatches = numMicrobatches;
  schedule.chunks = numChunks;
  schedule.waves = numWaves;
  schedule.replicas = numReplicas;
  schedule.forceForwardOnly = inference;
  schedule.entry = entry;
  pm.addPass(pipe::createPipeSchedule(schedule));
  pm.addPass(pipewave::sched::createSchedVerify());
  if (failed(pm.run(module)))
    return failure();
  return runAutodiff(module);
}

LogicalResult runLowering(ModuleOp module) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  pipewave::LowerToLLVMOptions options;
  options.matmul = *pipewave::symbolizeMatmulLowering(matmul);
  pipewave::buildLowerToLLVMPipeline(pm, options);
  return pm.run(module);
}

int link(const std::string &object, const std::string &output,
         const char *argv0) {
  std::string driver = cxx;
  if (driver.empty()) {
    for (StringRef name : {"c++", "mpicxx"})
      if (ErrorOr<std::string> path = sys::findProgramByName(name)) {
        driver = *path;
        break;
      }
    if (driver.empty())
      return fail("no C++ compiler to link with: neither mpicxx nor c++ is "
                  "on PATH (set --cxx)");
  } else if (!sys::fs::exists(driver)) {
    ErrorOr<std::string> path = sys::findProgramByName(driver);
    if (!path)
      return fail("--cxx: '" + driver + "' not found");
    driver = *path;
  }

  std::string dir = toolDir(argv0);
  SmallString<256> libDir(dir);
  sys::path::append(libDir, "..", "lib");
  sys::path::remove_dots(libDir, /*remove_dot_dot=*/true);
  auto inLib = [&](StringRef dirName, StringRef file) {
    SmallString<256> path(dir);
    sys::path::append(path, "..", dirName, file);
    sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    return std::string(path);
  };

  // The runtime: --runtime-lib, else what the runtime's build recorded in
  // pipewave_runtime.link (the archive, then the libraries it needs: MPI,
  // libstdc++, ...), else the library itself.
  std::vector<std::string> runtimeArgs;
  if (!runtimeLib.empty()) {
    if (!sys::fs::exists(runtimeLib))
      return fail("--runtime-lib: '" + runtimeLib + "' does not exist");
    runtimeArgs.push_back(runtimeLib);
  } else if (std::string linkFile =
                 firstExisting({inLib("lib", "pipewave_runtime.link")});
             !linkFile.empty()) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
        MemoryBuffer::getFile(linkFile);
    if (!buffer)
      return fail("cannot read " + linkFile + ": " +
                  buffer.getError().message());
    SmallVector<StringRef> lines;
    (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef line : lines)
      if (!line.trim().empty())
        runtimeArgs.push_back(line.trim().str());
  } else {
    std::string runtime =
        firstExisting({inLib("lib", "libpipewave_runtime.a"),
                       inLib("lib", "libpipewave_runtime.so")});
    if (runtime.empty())
      return fail("libpipewave_runtime not found in " + std::string(libDir) +
                  " (build the runtime, or pass --runtime-lib=FILE)");
    runtimeArgs.push_back(runtime);
    if (StringRef(runtime).ends_with(".so"))
      runtimeArgs.push_back("-Wl,-rpath," +
                            sys::path::parent_path(runtime).str());
  }
  std::string kernels = inLib("lib", "libpipewave_cpu_kernels.a");
  if (!sys::fs::exists(kernels))
    return fail("libpipewave_cpu_kernels.a not found in " +
                std::string(libDir));

  std::vector<std::string> args = {driver, object, "-o", output};
  args.insert(args.end(), runtimeArgs.begin(), runtimeArgs.end());
  args.push_back(kernels);
  for (const std::string &arg : linkArgs)
    args.push_back(arg);
  args.push_back("-lopenblas");
  args.push_back("-lm");
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string errorMessage;
  int rc = sys::ExecuteAndWait(driver, argRefs, std::nullopt, {}, 0, 0,
                               &errorMessage);
  if (rc != 0) {
    std::string command;
    for (const std::string &arg : args)
      command += (command.empty() ? "" : " ") + arg;
    return fail("linking failed" +
                (errorMessage.empty() ? "" : ": " + errorMessage) +
                "\n  command: " + command);
  }
  return 0;
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

  cl::HideUnrelatedOptions(category);
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

  if (targetName != "cpu")
    return fail("--target=" + targetName +
                " is not supported yet; the supported target is cpu");
  if (matmul != "auto" && matmul != "blas" && matmul != "vector" &&
      matmul != "loops")
    return fail("--matmul=" + matmul +
                ": expected auto, blas, vector or loops");
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
  if (numChunks.getNumOccurrences() && numChunks < 1)
    return fail("--chunks must be at least 1");
  if (numChunks.getNumOccurrences() && scheduleName != "interleaved")
    return fail("--chunks applies to --schedule interleaved only");
  if (numWaves.getNumOccurrences() && numWaves < 1)
    return fail("--waves must be at least 1");
  if (numWaves.getNumOccurrences() && scheduleName != "hanayo")
    return fail("--waves applies to --schedule hanayo only");
  if (numReplicas < 1)
    return fail("--replicas must be at least 1");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  pipewave::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);

  std::string errorMessage;
  auto sourceMgr = std::make_shared<SourceMgr>();
  SourceMgrDiagnosticHandler diagnostics(*sourceMgr, &context);
  OwningOpRef<ModuleOp> module;
  if (StringRef(inputFile).ends_with(".onnx")) {
    // An ONNX model goes through the importer; its initializer values are
    // written next to the output (OUT.safetensors, for pipewave-run --init).
#ifdef PIPEWAVE_HAVE_ONNX
    pipewave::OnnxImportOptions options;
    options.batchSize = onnxBatchSize;
    std::string output = defaultOutput();
    if (output != "-") {
      SmallString<256> weights(output);
      sys::path::replace_extension(weights, "safetensors");
      options.weightsPath = std::string(weights);
    }
    module =
        pipewave::importOnnxModel(inputFile, context, options, errorMessage);
    if (!module)
      return fail(errorMessage);
#else
    return fail("'" + inputFile +
                "': this pipewave-compile was built "
                "without the ONNX importer (libonnx-dev, libprotobuf-dev)");
#endif
  } else {
    std::unique_ptr<MemoryBuffer> input =
        openInputFile(inputFile, &errorMessage);
    if (!input)
      return fail(errorMessage);
    sourceMgr->AddNewSourceBuffer(std::move(input), SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
    if (!module)
      return 1;
  }

  if (failed(runFrontEnd(*module)))
    return 1;

  std::string output = defaultOutput();
  auto writeText = [&](auto print) -> int {
    std::unique_ptr<ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file)
      return fail(errorMessage);
    print(file->os());
    file->keep();
    return 0;
  };
  if (emit == Emit::Pipe)
    return writeText([&](raw_ostream &os) { module->print(os); });

  StringRef modelName =
      inputFile == "-" ? StringRef("<stdin>") : sys::path::filename(inputFile);
  FailureOr<pipewave::target::ModelDesc> desc =
      pipewave::target::readModelDesc(*module, entry, modelName, "pw_stage");
  if (failed(desc))
    return 1;

  if (failed(runLowering(*module)))
    return 1;
  if (emit == Emit::MLIR)
    return writeText([&](raw_ostream &os) { module->print(os); });

  LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, modelName);
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  if (!pipewave::target::setHostTarget(*llvmModule, errorMessage) ||
      !pipewave::target::emitModelDescriptor(*llvmModule, *desc,
                                             /*withMain=*/true, errorMessage))
    return fail(errorMessage);

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
    return 0;
  int rc = link(objectPath, output, argv[0]);
  sys::fs::remove(objectPath);
  return rc;
}
