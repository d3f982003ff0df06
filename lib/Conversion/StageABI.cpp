//===- StageABI.cpp - pipe-stage-abi: runtime wrappers of stages
//-----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The runtime calls every stage through one C signature, pw_stage_fn:
//
//   void pw_stage<k>_forward(void *const *args, void *const *results);
//
// and, for a stage pipe-autodiff differentiated, pw_stage<k>_backward,
// pw_stage<k>_backward_input and pw_stage<k>_backward_weight likewise
// (forward then calls @S_fwd, which also returns the stash). `args` holds the
// called function's arguments in order, `results` its results in order.
//
// The wrapper is written at the memref level, with LLVM dialect ops for the
// pointer loads and the memref descriptors, so that convert-func-to-llvm
// lowers the call of the stage function like any other call.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"

#include "mlir/IR/BuiltinOps.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPESTAGEABI
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// The attribute buffer-results-to-out-params{add-result-attr} puts on
/// out-parameters.
constexpr StringLiteral kResultAttr = "bufferize.result";

/// The LLVM struct the memref-to-LLVM type converter uses for `type`.
Type descriptorType(MemRefType type) {
  MLIRContext *ctx = type.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (type.getRank() > 0) {
    auto array = LLVM::LLVMArrayType::get(i64, type.getRank());
    fields.push_back(array);
    fields.push_back(array);
  }
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

/// Builds the descriptor of a contiguous buffer at `ptr` and casts it to
/// `type`.
Value buildMemRef(OpBuilder &b, Location loc, Value ptr, MemRefType type) {
  auto i64 = b.getI64Type();
  Type structType = descriptorType(type);
  Value desc = LLVM::PoisonOp::create(b, loc, structType);
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(0),
                                     ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, constant(type.getDimSize(d)), ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, constant(stride),
                                       ArrayRef<int64_t>{4, d});
    stride *= type.getDimSize(d);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

struct PipeStageABIPass
    : public pipewave::impl::PipeStageABIBase<PipeStageABIPass> {
  using PipeStageABIBase::PipeStageABIBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> stages;
    for (auto fn : module.getOps<func::FuncOp>())
      if (pipe::getStage(fn) >= 0 && !fn.isExternal())
        stages.push_back(fn);
    for (func::FuncOp fn : stages)
      if (failed(addWrappers(fn, symbols)))
        return signalPassFailure();
  }

  /// The wrappers of stage `fn`: `_forward` calls `@S_fwd` for a trained
  /// stage (pipe.fwd), else the stage function itself; `_backward`,
  /// `_backward_input` and `_backward_weight` call the functions named by
  /// pipe.bwd, pipe.bwd_input and pipe.bwd_weight, when present.
  LogicalResult addWrappers(func::FuncOp fn, SymbolTable &symbols) {
    MLIRContext *ctx = &getContext();
    std::string base = (prefix + Twine(pipe::getStage(fn))).str();
    struct Entry {
      StringRef attr;
      StringRef suffix;
    };
    const Entry entries[] = {
        {pipe::PipeDialect::FwdAttrHelper::getNameStr(), "_forward"},
        {pipe::PipeDialect::BwdAttrHelper::getNameStr(), "_backward"},
        {pipe::PipeDialect::BwdInputAttrHelper::getNameStr(),
         "_backward_input"},
        {pipe::PipeDialect::BwdWeightAttrHelper::getNameStr(),
         "_backward_weight"}};
    bool trained = fn->hasAttr(pipe::PipeDialect::FwdAttrHelper::getNameStr());
    if (!trained && failed(addWrapper(fn, base + "_forward", symbols)))
      return failure();
    for (const Entry &entry : entries) {
      auto ref = fn->getAttrOfType<FlatSymbolRefAttr>(entry.attr);
      if (!ref)
        continue;
      auto target = symbols.lookup<func::FuncOp>(ref.getValue());
      if (!target || target.isExternal())
        return fn.emitError()
               << "pipe-stage-abi: '" << entry.attr << "' of '@"
               << fn.getSymName() << "' names " << ref
               << ", which is not a function defined in the module";
      if (failed(addWrapper(target, base + entry.suffix.str(), symbols)))
        return failure();
    }
    // A trained stage's own function is called by no wrapper: internal, so
    // that LLVM drops it.
    fn->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    return success();
  }

  /// Adds `name(void *const *args, void *const *results)` calling `fn`.
  LogicalResult addWrapper(func::FuncOp fn, StringRef name,
                           SymbolTable &symbols) {
    if (fn.getNumResults() != 0)
      return fn.emitError()
             << "pipe-stage-abi: stage function '@" << fn.getSymName()
             << "' still returns values; run "
                "buffer-results-to-out-params{add-result-attr} first";
    SmallVector<unsigned> ins, outs;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      auto type = dyn_cast<MemRefType>(fn.getArgumentTypes()[i]);
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
        return fn.emitError()
               << "pipe-stage-abi: argument #" << i << " of '@"
               << fn.getSymName()
               << "' must be a memref with a static shape and the identity "
                  "layout, got "
               << fn.getArgumentTypes()[i]
               << " (bufferize with "
                  "function-boundary-type-conversion=identity-layout-map)";
      (fn.getArgAttr(i, kResultAttr) ? outs : ins).push_back(i);
    }

    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    if (symbols.lookup(name))
      return fn.emitError()
             << "pipe-stage-abi: symbol '@" << name << "' already exists";
    OpBuilder b(ctx);
    b.setInsertionPointAfter(fn);
    Location loc = fn.getLoc();
    auto wrapper = func::FuncOp::create(
        b, loc, name, b.getFunctionType({ptrType, ptrType}, {}));
    symbols.insert(wrapper);
    Block *body = wrapper.addEntryBlock();
    b.setInsertionPointToStart(body);

    SmallVector<Value> operands(fn.getNumArguments());
    auto load = [&](Value array, unsigned slot, unsigned argNo) {
      Value addr = LLVM::GEPOp::create(
          b, loc, ptrType, ptrType, array,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(slot)});
      Value ptr = LLVM::LoadOp::create(b, loc, ptrType, addr);
      operands[argNo] = buildMemRef(
          b, loc, ptr, cast<MemRefType>(fn.getArgumentTypes()[argNo]));
    };
    for (auto [slot, argNo] : llvm::enumerate(ins))
      load(body->getArgument(0), slot, argNo);
    for (auto [slot, argNo] : llvm::enumerate(outs))
      load(body->getArgument(1), slot, argNo);
    func::CallOp::create(b, loc, fn, operands);
    func::ReturnOp::create(b, loc);

    // Only the wrapper calls the function: keep it out of the symbol table
    // of the object (and let LLVM inline it).
    fn->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    return success();
  }
};

} // namespace
