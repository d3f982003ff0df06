//===- ModelDesc.cpp - Reading the pw_model of a pipelined module ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Target/CPU.h"

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "pipewave-runtime/model.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::target;

namespace {

FailureOr<int32_t> dtypeOf(Type type, Operation *where, StringRef what) {
  if (type.isF32())
    return PW_F32;
  if (type.isF64())
    return PW_F64;
  if (type.isSignlessInteger(32))
    return PW_I32;
  if (type.isSignlessInteger(64))
    return PW_I64;
  if (type.isSignlessInteger(8))
    return PW_I8;
  if (type.isSignlessInteger(1))
    return PW_BOOL;
  return where->emitError()
         << "pipewave-compile: " << what << " has element type " << type
         << ", which the runtime does not support (f32, "
            "f64, i32, i64, i8, i1)";
}

FailureOr<TensorDesc> tensorDesc(Type type, StringRef name, Operation *where,
                                 StringRef what) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return where->emitError()
           << "pipewave-compile: " << what
           << " must be a tensor with a static shape, got " << type;
  FailureOr<int32_t> dtype = dtypeOf(ranked.getElementType(), where, what);
  if (failed(dtype))
    return failure();
  TensorDesc desc;
  desc.name = name.str();
  desc.dtype = *dtype;
  desc.shape.assign(ranked.getShape().begin(), ranked.getShape().end());
  return desc;
}

/// The value a stage call operand stands for in the composition: looks
/// through pipe.recv (to the sent value) and the microbatch slice of a data
/// input (to the entry argument).
Value lookThrough(Value value, DenseMap<int64_t, Value> &sent) {
  if (auto recv = value.getDefiningOp<pipe::RecvOp>()) {
    auto it = sent.find(recv.getTag());
    if (it != sent.end())
      return it->second;
  }
  if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    if (isa<BlockArgument>(slice.getSource()))
      return slice.getSource();
  return value;
}

/// The function that attribute `attrName` of stage function `stage` names,
/// null (and an error) when it names none.
func::FuncOp trainingFunction(func::FuncOp stage, StringRef attrName,
                              SymbolTableCollection &symbols) {
  auto ref = stage->getAttrOfType<FlatSymbolRefAttr>(attrName);
  if (!ref) {
    stage.emitError()
        << "pipewave-compile: stage function '@" << stage.getSymName()
        << "' has no '" << attrName
        << "', which the training step needs; run pipe-autodiff"
        << (attrName == pipe::PipeDialect::FwdAttrHelper::getNameStr() ||
                    attrName == pipe::PipeDialect::BwdAttrHelper::getNameStr()
                ? ""
                : "{split=true}");
    return nullptr;
  }
  auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(stage, ref);
  if (!fn || fn.isExternal())
    stage.emitError() << "pipewave-compile: '" << attrName << "' of '@"
                      << stage.getSymName() << "' names " << ref
                      << ", which is not a function defined in the module";
  return fn && !fn.isExternal() ? fn : nullptr;
}

/// The training fields of `stage` (stage function `callee`, k-th stage),
/// from the functions pipe-autodiff made; `split` when the schedule has I and
/// W actions.
LogicalResult readTraining(StageDesc &stage, func::FuncOp callee, int64_t k,
                           bool split, StringRef wrapperPrefix,
                           SymbolTableCollection &symbols) {
  std::string base = (wrapperPrefix + Twine(k)).str();
  std::string what = "stage " + std::to_string(k);
  func::FuncOp fwd = trainingFunction(
      callee, pipe::PipeDialect::FwdAttrHelper::getNameStr(), symbols);
  func::FuncOp bwd = trainingFunction(
      callee, pipe::PipeDialect::BwdAttrHelper::getNameStr(), symbols);
  if (!fwd || !bwd)
    return failure();
  auto gradArgs = callee->getAttrOfType<DenseI64ArrayAttr>(
      pipe::PipeDialect::GradArgsAttrHelper::getNameStr());
  if (!gradArgs)
    return callee.emitError()
           << "pipewave-compile: stage function '@" << callee.getSymName()
           << "' has no '"
           << pipe::PipeDialect::GradArgsAttrHelper::getNameStr()
           << "'; run pipe-autodiff";

  // @S_fwd: the stage's results, then the stash, then the new state.
  if (auto state = callee->getAttrOfType<DenseI64ArrayAttr>(
          pipe::PipeDialect::StateArgsAttrHelper::getNameStr()))
    for (int64_t arg : state.asArrayRef())
      stage.stateArgs.push_back(static_cast<int32_t>(arg));
  size_t numResults = stage.results.size();
  size_t numState = stage.stateArgs.size();
  if (fwd.getNumArguments() != stage.args.size() ||
      fwd.getNumResults() < numResults + numState)
    return fwd.emitError() << "pipewave-compile: '@" << fwd.getSymName()
                           << "' does not take the arguments of " << what
                           << " and return its results first";
  for (int32_t arg : stage.stateArgs)
    if (stage.argSource[arg] != PW_FROM_PARAM)
      return fwd.emitError() << "pipewave-compile: state argument #" << arg
                             << " of " << what << " is not a parameter";
  for (unsigned j = numResults, e = fwd.getNumResults() - numState; j < e;
       ++j) {
    FailureOr<TensorDesc> t = tensorDesc(
        fwd.getResultTypes()[j], "stash" + std::to_string(j - numResults), fwd,
        "stash value #" + std::to_string(j - numResults) + " of " + what);
    if (failed(t))
      return failure();
    stage.stash.push_back(*t);
  }
  size_t numDres = 0;
  for (const TensorDesc &result : stage.results) {
    bool isFloat = result.dtype == PW_F32 || result.dtype == PW_F64;
    stage.resultHasGrad.push_back(isFloat ? 1 : 0);
    numDres += isFloat;
  }

  // @S_bwd(args..., stash..., d_res...) -> (d_grad_args...).
  size_t numActivationGrads = 0;
  for (int64_t index : gradArgs.asArrayRef()) {
    if (index < 0 || static_cast<size_t>(index) >= stage.args.size() ||
        (!stage.gradArgs.empty() && index <= stage.gradArgs.back()))
      return callee.emitError()
             << "pipewave-compile: '"
             << pipe::PipeDialect::GradArgsAttrHelper::getNameStr() << "' of '@"
             << callee.getSymName() << "' must list ascending argument indices";
    stage.gradArgs.push_back(static_cast<int32_t>(index));
    numActivationGrads += !pipe::isParam(callee, index);
  }
  size_t numBwdArgs = stage.args.size() + stage.stash.size() + numDres;
  if (bwd.getNumArguments() != numBwdArgs ||
      bwd.getNumResults() != stage.gradArgs.size())
    return bwd.emitError() << "pipewave-compile: '@" << bwd.getSymName()
                           << "' of " << what << " must take " << numBwdArgs
                           << " arguments (arguments, stash, result "
                              "gradients) and return "
                           << stage.gradArgs.size() << " gradients";
  stage.forwardSymbol = base + "_forward";
  stage.backwardSymbol = base + "_backward";
  if (!split)
    return success();

  // @S_bwd_input(same as @S_bwd) -> (d_activation_args..., computed...);
  // @S_bwd_weight(wstash...) -> (d_param_args...), each wstash value an
  // argument of @S_bwd_input (pipe.wstash_args) or the next computed one.
  func::FuncOp input = trainingFunction(
      callee, pipe::PipeDialect::BwdInputAttrHelper::getNameStr(), symbols);
  func::FuncOp weight = trainingFunction(
      callee, pipe::PipeDialect::BwdWeightAttrHelper::getNameStr(), symbols);
  if (!input || !weight)
    return failure();
  SmallVector<int64_t> sources =
      pipe::getWStashArgs(callee, weight.getNumArguments());
  size_t computed = llvm::count(sources, -1);
  if (input.getNumArguments() != numBwdArgs ||
      input.getNumResults() != numActivationGrads + computed)
    return input.emitError()
           << "pipewave-compile: '@" << input.getSymName() << "' of " << what
           << " must take the arguments of '@" << bwd.getSymName()
           << "' and return " << numActivationGrads
           << " activation gradients, then the " << computed
           << " weight stash values that '"
           << pipe::PipeDialect::WstashArgsAttrHelper::getNameStr()
           << "' does not pass through";
  for (auto [j, type] : llvm::enumerate(weight.getArgumentTypes())) {
    FailureOr<TensorDesc> t =
        tensorDesc(type, "wstash" + std::to_string(j), weight,
                   "weight stash value #" + std::to_string(j) + " of " + what);
    if (failed(t))
      return failure();
    stage.wstash.push_back(*t);
    stage.wstashSource.push_back(static_cast<int32_t>(sources[j]));
  }
  if (weight.getNumResults() != stage.gradArgs.size() - numActivationGrads)
    return weight.emitError()
           << "pipewave-compile: '@" << weight.getSymName() << "' of " << what
           << " must take the " << stage.wstash.size()
           << " weight stash values and return "
           << stage.gradArgs.size() - numActivationGrads
           << " parameter gradients";
  stage.backwardInputSymbol = base + "_backward_input";
  stage.backwardWeightSymbol = base + "_backward_weight";
  return success();
}

} // namespace

FailureOr<ModelDesc> pipewave::target::readModelDesc(ModuleOp module,
                                                     StringRef entry,
                                                     StringRef modelName,
                                                     StringRef wrapperPrefix) {
  func::FuncOp fn = pipe::lookupEntry(module, entry, "pipewave-compile");
  if (!fn)
    return failure();
  ModelDesc desc;
  desc.name = modelName.str();

  // Global-batch inputs and outputs.
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::string name = pipe::getArgName(fn, i);
    FailureOr<TensorDesc> t =
        tensorDesc(fn.getArgumentTypes()[i], name, fn,
                   "argument '" + name + "' of '@" + entry.str() + "'");
    if (failed(t))
      return failure();
    desc.inputs.push_back(*t);
    desc.inputIsParam.push_back(pipe::isParam(fn, i) ? 1 : 0);
    if (pipe::isCounterArg(fn, i)) {
      desc.inputIsCounter.resize(fn.getNumArguments(), 0);
      desc.inputIsCounter[i] = 1;
    }
  }
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
    std::string name;
    if (StringAttr attr = pipe::getNameResultAttr(fn, i))
      name = attr.str();
    FailureOr<TensorDesc> t = tensorDesc(fn.getResultTypes()[i], name, fn,
                                         "result #" + std::to_string(i) +
                                             " of '@" + entry.str() + "'");
    if (failed(t))
      return failure();
    desc.outputs.push_back(*t);
    StringAttr combine = pipe::getCombineResultAttr(fn, i);
    if (!combine)
      return fn.emitError()
             << "pipewave-compile: result #" << i << " of '@" << entry
             << "' has no pipe.combine; run pipe-microbatch";
    desc.outputCombine.push_back(combine.getValue() == "sum" ? PW_SUM
                                                             : PW_CONCAT_BATCH);
  }

  // Stages, in call order.
  SymbolTableCollection symbols;
  SmallVector<func::FuncOp> callees;
  DenseMap<int64_t, Value> sent;
  DenseMap<Value, std::pair<int64_t, unsigned>> producedBy; // stage, result
  int64_t numStages = 0;
  for (Operation &op : fn.getBody().front()) {
    if (auto send = dyn_cast<pipe::SendOp>(op)) {
      sent[send.getTag()] = send.getValue();
      continue;
    }
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      continue;
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || pipe::getStage(callee) < 0)
      continue;
    int64_t k = pipe::getStage(callee);
    if (k != numStages)
      return call.emitError() << "pipewave-compile: expected a call of stage "
                              << numStages << ", found stage " << k;
    StageDesc stage;
    stage.forwardSymbol = (wrapperPrefix + Twine(k) + "_forward").str();
    for (auto [i, operand] : llvm::enumerate(call.getOperands())) {
      std::string name;
      if (StringAttr attr = pipe::getNameArgAttr(callee, i))
        name = attr.str();
      FailureOr<TensorDesc> t = tensorDesc(
          callee.getArgumentTypes()[i], name, callee,
          "argument #" + std::to_string(i) + " of stage " + std::to_string(k));
      if (failed(t))
        return failure();
      stage.args.push_back(*t);
      Value source = lookThrough(operand, sent);
      if (auto arg = dyn_cast<BlockArgument>(source);
          arg && arg.getOwner() == &fn.getBody().front()) {
        bool param = pipe::isParam(fn, arg.getArgNumber());
        stage.argSource.push_back(param ? PW_FROM_PARAM : PW_FROM_DATA);
        stage.argIndex.push_back(arg.getArgNumber());
        continue;
      }
      auto it = producedBy.find(source);
      if (it == producedBy.end() || it->second.first != k - 1)
        return call.emitError()
               << "pipewave-compile: operand #" << i << " of the call of stage "
               << k << " is neither an entry argument nor a result of stage "
               << (k - 1);
      stage.argSource.push_back(PW_FROM_PREVIOUS);
      stage.argIndex.push_back(it->second.second);
    }
    for (auto [j, result] : llvm::enumerate(call.getResults())) {
      FailureOr<TensorDesc> t = tensorDesc(
          result.getType(), "", callee,
          "result #" + std::to_string(j) + " of stage " + std::to_string(k));
      if (failed(t))
        return failure();
      stage.results.push_back(*t);
      producedBy[result] = {k, static_cast<unsigned>(j)};
    }
    desc.stages.push_back(std::move(stage));
    callees.push_back(callee);
    ++numStages;
  }
  if (numStages == 0)
    return fn.emitError() << "pipewave-compile: '@" << entry
                          << "' calls no stage function";
  // The last stage returns the entry's results.
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Value v = value;
    if (auto insert = v.getDefiningOp<tensor::InsertSliceOp>())
      v = insert.getSource();
    auto it = producedBy.find(v);
    if (it == producedBy.end() || it->second.first != numStages - 1 ||
        it->second.second != i)
      return fn.emitError()
             << "pipewave-compile: result #" << i << " of '@" << entry
             << "' is not result #" << i << " of the last stage";
  }

  auto programs = module.getOps<sched::ProgramOp>();
  if (programs.empty())
    return module.emitError()
           << "pipewave-compile: the module has no sched.program; run "
              "pipe-schedule";
  desc.program = sched::readProgramOp(*programs.begin()).program;
  desc.schedule = desc.program.schedule;
  desc.numMicrobatches = desc.program.numMicrobatches;
  if (desc.program.numStages != numStages)
    return module.emitError() << "pipewave-compile: the sched.program has "
                              << desc.program.numStages << " stages, '@"
                              << entry << "' calls " << numStages;

  // Training steps: the forward and backward functions of pipe-autodiff.
  if (!desc.program.forwardOnly) {
    bool split = false;
    for (const schedule::RankProgram &rank : desc.program.ranks)
      for (const schedule::Action &action : rank.actions)
        split |= action.kind == schedule::ActionKind::BackwardInput ||
                 action.kind == schedule::ActionKind::BackwardWeight;
    for (auto [k, callee] : llvm::enumerate(callees))
      if (failed(readTraining(desc.stages[k], callee, k, split, wrapperPrefix,
                              symbols)))
        return failure();
  }
  return desc;
}

void pipewave::target::readWorkspaceSizes(ModuleOp module, ModelDesc &desc) {
  auto sizes = module->getAttrOfType<DictionaryAttr>("pipewave.workspaces");
  auto bytesOf = [&](const std::string &symbol) -> int64_t {
    if (!sizes || symbol.empty())
      return 0;
    auto bytes = sizes.getAs<IntegerAttr>(symbol);
    return bytes ? bytes.getInt() : 0;
  };
  for (StageDesc &stage : desc.stages) {
    stage.forwardWorkspace = bytesOf(stage.forwardSymbol);
    stage.backwardWorkspace = bytesOf(stage.backwardSymbol);
    stage.backwardInputWorkspace = bytesOf(stage.backwardInputSymbol);
    stage.backwardWeightWorkspace = bytesOf(stage.backwardWeightSymbol);
  }
}

void pipewave::target::readAccumulatingVariants(ModuleOp module,
                                                ModelDesc &desc) {
  auto flags = module->getAttrOfType<DictionaryAttr>("pipewave.accumulating");
  auto sizes = module->getAttrOfType<DictionaryAttr>("pipewave.workspaces");
  if (!flags)
    return;
  auto bytesOf = [&](const std::string &symbol) -> int64_t {
    auto bytes = sizes ? sizes.getAs<IntegerAttr>(symbol) : IntegerAttr();
    return bytes ? bytes.getInt() : 0;
  };
  for (StageDesc &stage : desc.stages) {
    if (stage.backwardSymbol.empty())
      continue;
    // Result j of the weight function is the gradient of the j-th
    // parameter among the grad args.
    std::vector<size_t> params;
    for (size_t k = 0; k < stage.gradArgs.size(); ++k)
      if (stage.argSource[stage.gradArgs[k]] == PW_FROM_PARAM)
        params.push_back(k);
    std::vector<int32_t> accumulates(stage.gradArgs.size(), 0);
    std::string bwd = stage.backwardSymbol + "_acc";
    if (auto results = flags.getAs<DenseI32ArrayAttr>(bwd);
        results && results.size() == static_cast<int64_t>(accumulates.size())) {
      for (size_t k = 0; k < accumulates.size(); ++k)
        accumulates[k] |= results[k] ? 1 : 0;
      stage.backwardAccSymbol = bwd;
      stage.backwardAccWorkspace = bytesOf(bwd);
    }
    std::string weight = stage.backwardWeightSymbol.empty()
                             ? std::string()
                             : stage.backwardWeightSymbol + "_acc";
    if (auto results = weight.empty() ? DenseI32ArrayAttr()
                                      : flags.getAs<DenseI32ArrayAttr>(weight);
        results && results.size() == static_cast<int64_t>(params.size())) {
      for (size_t j = 0; j < params.size(); ++j)
        accumulates[params[j]] |= results[j] ? 2 : 0;
      stage.backwardWeightAccSymbol = weight;
      stage.backwardWeightAccWorkspace = bytesOf(weight);
    }
    if (!stage.backwardAccSymbol.empty() ||
        !stage.backwardWeightAccSymbol.empty())
      stage.gradAccumulates = accumulates;
  }
}
