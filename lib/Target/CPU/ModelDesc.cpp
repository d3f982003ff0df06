//===- ModelDesc.cpp - Reading the pw_model of a pipelined module ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "CPU/CPUTarget.h"

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
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
  return where->emitError() << "pipewave-compile: " << what
                            << " has element type " << type
                            << ", which the runtime does not support (f32, "
                               "f64, i32, i64, i8, i1)";
}

FailureOr<TensorDesc> tensorDesc(Type type, StringRef name, Operation *where,
                                 StringRef what) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return where->emitError() << "pipewave-compile: " << what
                              << " must be a tensor with a static shape, got "
                              << type;
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
  }
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
    std::string name;
    if (auto attr = fn.getResultAttrOfType<StringAttr>(
            i, pipe::PipeDialect::getNameAttrName()))
      name = attr.str();
    FailureOr<TensorDesc> t =
        tensorDesc(fn.getResultTypes()[i], name, fn,
                   "result #" + std::to_string(i) + " of '@" + entry.str() +
                       "'");
    if (failed(t))
      return failure();
    desc.outputs.push_back(*t);
    auto combine = fn.getResultAttrOfType<StringAttr>(i, "pipe.combine");
    if (!combine)
      return fn.emitError() << "pipewave-compile: result #" << i << " of '@"
                            << entry
                            << "' has no pipe.combine; run pipe-microbatch";
    desc.outputCombine.push_back(combine.getValue() == "sum" ? PW_SUM
                                                              : PW_CONCAT_BATCH);
  }

  // Stages, in call order.
  SymbolTableCollection symbols;
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
      if (auto attr = callee.getArgAttrOfType<StringAttr>(
              i, pipe::PipeDialect::getNameAttrName()))
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
               << k
               << " is neither an entry argument nor a result of stage "
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
      return fn.emitError() << "pipewave-compile: result #" << i << " of '@"
                            << entry << "' is not result #" << i
                            << " of the last stage";
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
  return desc;
}
