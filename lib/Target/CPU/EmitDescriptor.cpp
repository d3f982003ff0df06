//===- EmitDescriptor.cpp - pw_model as LLVM globals ----------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Writes the constant pw_model of pipewave-runtime/model.h into the LLVM
// module holding the stage code, so the executable needs no generated C. The
// LLVM struct types mirror the C structs; their layout under the module's
// data layout is checked against offsetof/sizeof of the header.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Target/CPU.h"

#include "pipewave-runtime/model.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <cstddef>

using namespace llvm;
using namespace pipewave;
using namespace pipewave::target;

namespace {

struct Emitter {
  Module &module;
  LLVMContext &ctx;
  Type *i32, *i64;
  PointerType *ptr;
  StructType *tensorInfoTy, *stageTy, *actionTy, *rankTy, *modelTy;
  unsigned counter = 0;

  explicit Emitter(Module &module)
      : module(module), ctx(module.getContext()), i32(Type::getInt32Ty(ctx)),
        i64(Type::getInt64Ty(ctx)), ptr(PointerType::getUnqual(ctx)) {
    tensorInfoTy =
        StructType::create(ctx, {ptr, i32, i32, ptr}, "struct.pw_tensor_info");
    stageTy =
        StructType::create(ctx, {i32, ptr, ptr, ptr, i32, ptr, ptr, // forward
                                 i32, ptr, ptr, i32, ptr,           // training
                                 ptr, ptr, ptr, i32, ptr, ptr,      // backward
                                 i32, ptr,                          // state
                                 i64, i64, i64, i64,       // workspaces
                                 ptr, ptr, ptr, i64, i64}, // accumulating
                           "struct.pw_stage");
    actionTy = StructType::create(
        ctx, {i32, i32, i32, i32, i32, i64, i32, i32, i32}, "struct.pw_action");
    rankTy =
        StructType::create(ctx, {i32, ptr, i32, ptr}, "struct.pw_rank_program");
    modelTy =
        StructType::create(ctx, {i32, ptr, ptr, i32, i32, i32, i32, // header
                                 i32, ptr, ptr,                     // inputs
                                 i32, ptr, ptr,                     // outputs
                                 ptr, ptr, ptr,                     // tables
                                 i32,                               // device
                                 ptr,                               // weights
                                 ptr,  // input_is_counter
                                 ptr}, // arm_updates
                           "struct.pw_model");
  }

  /// Checks the LLVM layout of `type` against the C struct.
  bool checkLayout(StructType *type, size_t size,
                   std::initializer_list<size_t> offsets, StringRef name,
                   std::string &error) {
    const StructLayout *layout = module.getDataLayout().getStructLayout(type);
    bool ok = layout->getSizeInBytes() == size &&
              type->getNumElements() == offsets.size();
    unsigned i = 0;
    for (size_t offset : offsets)
      ok = ok && layout->getElementOffset(i++) == offset;
    if (!ok)
      error = ("the LLVM layout of " + name +
               " does not match pipewave-runtime/model.h for the target's "
               "data layout")
                  .str();
    return ok;
  }

  bool checkLayouts(std::string &error) {
#define OFF(T, F) offsetof(T, F)
    return checkLayout(tensorInfoTy, sizeof(pw_tensor_info),
                       {OFF(pw_tensor_info, name), OFF(pw_tensor_info, dtype),
                        OFF(pw_tensor_info, rank), OFF(pw_tensor_info, shape)},
                       "pw_tensor_info", error) &&
           checkLayout(stageTy, sizeof(pw_stage),
                       {OFF(pw_stage, num_args),
                        OFF(pw_stage, args),
                        OFF(pw_stage, arg_source),
                        OFF(pw_stage, arg_index),
                        OFF(pw_stage, num_results),
                        OFF(pw_stage, results),
                        OFF(pw_stage, forward),
                        OFF(pw_stage, num_stash),
                        OFF(pw_stage, stash),
                        OFF(pw_stage, result_has_grad),
                        OFF(pw_stage, num_grad_args),
                        OFF(pw_stage, grad_args),
                        OFF(pw_stage, backward),
                        OFF(pw_stage, backward_input),
                        OFF(pw_stage, backward_weight),
                        OFF(pw_stage, num_wstash),
                        OFF(pw_stage, wstash),
                        OFF(pw_stage, wstash_source),
                        OFF(pw_stage, num_state),
                        OFF(pw_stage, state_args),
                        OFF(pw_stage, forward_workspace),
                        OFF(pw_stage, backward_workspace),
                        OFF(pw_stage, backward_input_workspace),
                        OFF(pw_stage, backward_weight_workspace),
                        OFF(pw_stage, backward_acc),
                        OFF(pw_stage, backward_weight_acc),
                        OFF(pw_stage, grad_accumulates),
                        OFF(pw_stage, backward_acc_workspace),
                        OFF(pw_stage, backward_weight_acc_workspace)},
                       "pw_stage", error) &&
           checkLayout(actionTy, sizeof(pw_action),
                       {OFF(pw_action, kind), OFF(pw_action, stage),
                        OFF(pw_action, microbatch), OFF(pw_action, payload),
                        OFF(pw_action, peer), OFF(pw_action, tag),
                        OFF(pw_action, group_begin), OFF(pw_action, group_size),
                        OFF(pw_action, param)},
                       "pw_action", error) &&
           checkLayout(rankTy, sizeof(pw_rank_program),
                       {OFF(pw_rank_program, num_stages),
                        OFF(pw_rank_program, stages),
                        OFF(pw_rank_program, num_actions),
                        OFF(pw_rank_program, actions)},
                       "pw_rank_program", error) &&
           checkLayout(modelTy, sizeof(pw_model),
                       {OFF(pw_model, abi_version),
                        OFF(pw_model, name),
                        OFF(pw_model, schedule),
                        OFF(pw_model, num_stages),
                        OFF(pw_model, num_microbatches),
                        OFF(pw_model, num_ranks),
                        OFF(pw_model, forward_only),
                        OFF(pw_model, num_inputs),
                        OFF(pw_model, inputs),
                        OFF(pw_model, input_is_param),
                        OFF(pw_model, num_outputs),
                        OFF(pw_model, outputs),
                        OFF(pw_model, output_combine),
                        OFF(pw_model, stages),
                        OFF(pw_model, ranks),
                        OFF(pw_model, group_ranks),
                        OFF(pw_model, device),
                        OFF(pw_model, weights_file),
                        OFF(pw_model, input_is_counter),
                        OFF(pw_model, arm_updates)},
                       "pw_model", error);
#undef OFF
  }

  Constant *c32(int64_t v) { return ConstantInt::get(i32, v, true); }
  Constant *c64(int64_t v) { return ConstantInt::get(i64, v, true); }

  /// A private constant global holding `init`; returns its address.
  Constant *global(Constant *init, StringRef hint) {
    auto *gv = new GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                  GlobalValue::PrivateLinkage, init,
                                  "__pw_" + hint + "." + Twine(counter++));
    gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    return gv;
  }

  Constant *string(StringRef s) {
    return global(ConstantDataArray::getString(ctx, s), "str");
  }

  /// A constant array of `elems` (of `elemTy`), or null when empty.
  Constant *array(Type *elemTy, ArrayRef<Constant *> elems, StringRef hint) {
    if (elems.empty())
      return ConstantPointerNull::get(ptr);
    return global(
        ConstantArray::get(ArrayType::get(elemTy, elems.size()), elems), hint);
  }

  Constant *array32(ArrayRef<int32_t> values, StringRef hint) {
    SmallVector<Constant *> elems;
    for (int32_t v : values)
      elems.push_back(c32(v));
    return array(i32, elems, hint);
  }

  Constant *array64(ArrayRef<int64_t> values, StringRef hint) {
    SmallVector<Constant *> elems;
    for (int64_t v : values)
      elems.push_back(c64(v));
    return array(i64, elems, hint);
  }

  Constant *tensors(ArrayRef<TensorDesc> list, StringRef hint) {
    SmallVector<Constant *> elems;
    for (const TensorDesc &t : list)
      elems.push_back(ConstantStruct::get(
          tensorInfoTy, {string(t.name), c32(t.dtype),
                         c32(static_cast<int32_t>(t.shape.size())),
                         array64(t.shape, "shape")}));
    return array(tensorInfoTy, elems, hint);
  }

  /// The stage function `name` (a pw_stage_fn), or null when empty.
  Constant *stageFn(StringRef name) {
    if (name.empty())
      return ConstantPointerNull::get(ptr);
    auto *type = FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr}, false);
    return cast<Function>(module.getOrInsertFunction(name, type).getCallee());
  }

  /// The index of the model input named `name`, or -1.
  static int32_t inputOf(const ModelDesc &desc, const std::string &name) {
    for (size_t i = 0; i < desc.inputs.size(); ++i)
      if (desc.inputs[i].name == name)
        return static_cast<int32_t>(i);
    return -1;
  }

  Constant *model(const ModelDesc &desc) {
    SmallVector<Constant *> stages;
    for (const StageDesc &s : desc.stages)
      stages.push_back(ConstantStruct::get(
          stageTy, {c32(s.args.size()),
                    tensors(s.args, "stage_args"),
                    array32(s.argSource, "arg_source"),
                    array32(s.argIndex, "arg_index"),
                    c32(s.results.size()),
                    tensors(s.results, "stage_results"),
                    stageFn(s.forwardSymbol),
                    c32(s.stash.size()),
                    tensors(s.stash, "stash"),
                    array32(s.resultHasGrad, "result_has_grad"),
                    c32(s.gradArgs.size()),
                    array32(s.gradArgs, "grad_args"),
                    stageFn(s.backwardSymbol),
                    stageFn(s.backwardInputSymbol),
                    stageFn(s.backwardWeightSymbol),
                    c32(s.wstash.size()),
                    tensors(s.wstash, "wstash"),
                    array32(s.wstashSource, "wstash_source"),
                    c32(s.stateArgs.size()),
                    array32(s.stateArgs, "state_args"),
                    c64(s.forwardWorkspace),
                    c64(s.backwardWorkspace),
                    c64(s.backwardInputWorkspace),
                    c64(s.backwardWeightWorkspace),
                    stageFn(s.backwardAccSymbol),
                    stageFn(s.backwardWeightAccSymbol),
                    array32(s.gradAccumulates, "grad_accumulates"),
                    c64(s.backwardAccWorkspace),
                    c64(s.backwardWeightAccWorkspace)}));

    std::vector<int32_t> groupPool;
    SmallVector<Constant *> ranks;
    for (const schedule::RankProgram &rank : desc.program.ranks) {
      SmallVector<Constant *> actions;
      for (const schedule::Action &a : rank.actions) {
        int32_t begin = 0, size = 0;
        if (!a.group.empty()) {
          begin = groupPool.size();
          size = a.group.size();
          groupPool.insert(groupPool.end(), a.group.begin(), a.group.end());
        }
        actions.push_back(ConstantStruct::get(
            actionTy,
            {c32(static_cast<int32_t>(a.kind)), c32(a.stage), c32(a.microbatch),
             c32(a.payload == schedule::Payload::Gradient ? PW_GRADIENT
                                                          : PW_ACTIVATION),
             c32(a.peer), c64(a.tag), c32(begin), c32(size),
             c32(a.kind == schedule::ActionKind::TiedAllReduce
                     ? inputOf(desc, a.param)
                     : -1)}));
      }
      std::vector<int32_t> held(rank.stages.begin(), rank.stages.end());
      ranks.push_back(ConstantStruct::get(
          rankTy, {c32(held.size()), array32(held, "rank_stages"),
                   c32(actions.size()), array(actionTy, actions, "actions")}));
    }

    return ConstantStruct::get(
        modelTy, {c32(PW_MODEL_ABI_VERSION),
                  string(desc.name),
                  string(desc.schedule),
                  c32(desc.stages.size()),
                  c32(desc.numMicrobatches),
                  c32(desc.program.ranks.size()),
                  c32(desc.program.forwardOnly ? 1 : 0),
                  c32(desc.inputs.size()),
                  tensors(desc.inputs, "inputs"),
                  array32(desc.inputIsParam, "input_is_param"),
                  c32(desc.outputs.size()),
                  tensors(desc.outputs, "outputs"),
                  array32(desc.outputCombine, "output_combine"),
                  array(stageTy, stages, "stages"),
                  array(rankTy, ranks, "ranks"),
                  array32(groupPool, "group_ranks"),
                  c32(desc.device),
                  desc.weightsFile.empty() ? ConstantPointerNull::get(ptr)
                                           : string(desc.weightsFile),
                  desc.inputIsCounter.empty()
                      ? ConstantPointerNull::get(ptr)
                      : array32(desc.inputIsCounter, "input_is_counter"),
                  armUpdates()});
  }

  /// The kernel library's pw_arm_updates when the stage code calls a
  /// product that may update its parameter (pipe-fuse-updates), else null.
  Constant *armUpdates() {
    if (!module.getFunction("pw_sgemm_update") &&
        !module.getFunction("pw_sgemm_batched_update"))
      return ConstantPointerNull::get(ptr);
    return cast<Constant>(
        module
            .getOrInsertFunction(
                "pw_arm_updates",
                FunctionType::get(Type::getVoidTy(ctx), {ptr, i32}, false))
            .getCallee());
  }
};

// The enum values written above are those of the C header.
static_assert(
    static_cast<int>(schedule::ActionKind::Forward) == PW_ACT_FORWARD &&
        static_cast<int>(schedule::ActionKind::Backward) == PW_ACT_BACKWARD &&
        static_cast<int>(schedule::ActionKind::BackwardInput) ==
            PW_ACT_BACKWARD_INPUT &&
        static_cast<int>(schedule::ActionKind::BackwardWeight) ==
            PW_ACT_BACKWARD_WEIGHT &&
        static_cast<int>(schedule::ActionKind::Send) == PW_ACT_SEND &&
        static_cast<int>(schedule::ActionKind::Recv) == PW_ACT_RECV &&
        static_cast<int>(schedule::ActionKind::AllReduce) == PW_ACT_ALLREDUCE &&
        static_cast<int>(schedule::ActionKind::OptimizerStep) ==
            PW_ACT_OPTIMIZER &&
        static_cast<int>(schedule::ActionKind::TiedAllReduce) ==
            PW_ACT_TIED_ALLREDUCE,
    "schedule::ActionKind and pw_action_kind disagree");

} // namespace

bool pipewave::target::emitModelDescriptor(Module &module,
                                           const ModelDesc &desc, bool withMain,
                                           std::string &error) {
  Emitter e(module);
  if (!e.checkLayouts(error))
    return false;

  auto *modelVar = new GlobalVariable(module, e.modelTy, /*isConstant=*/true,
                                      GlobalValue::InternalLinkage,
                                      e.model(desc), "__pw_model");

  // const pw_model *pw_get_model(void)
  auto *getModel =
      Function::Create(FunctionType::get(e.ptr, {}, false),
                       GlobalValue::ExternalLinkage, "pw_get_model", module);
  IRBuilder<> b(BasicBlock::Create(e.ctx, "entry", getModel));
  b.CreateRet(modelVar);

  if (withMain) {
    // int main(int argc, char **argv) {
    //   return pw_runtime_main(argc, argv, pw_get_model()); }
    auto *runtimeMain = cast<Function>(
        module
            .getOrInsertFunction(
                "pw_runtime_main",
                FunctionType::get(e.i32, {e.i32, e.ptr, e.ptr}, false))
            .getCallee());
    auto *mainFn =
        Function::Create(FunctionType::get(e.i32, {e.i32, e.ptr}, false),
                         GlobalValue::ExternalLinkage, "main", module);
    b.SetInsertPoint(BasicBlock::Create(e.ctx, "entry", mainFn));
    Value *m = b.CreateCall(getModel);
    b.CreateRet(
        b.CreateCall(runtimeMain, {mainFn->getArg(0), mainFn->getArg(1), m}));
  }
  return true;
}
