//===- FuseUpdates.cpp - pipe-fuse-updates --------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The product that writes a trained parameter's whole gradient last, after
// every read of the parameter in its backward function, becomes a call that
// also takes the parameter, so that it may run the parameter's SGD update as
// it stores the gradient (Passes.td; lib/Target/CPU/FusedUpdate.h).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "MatmulUtils.h"

#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEFUSEUPDATES
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// The attribute buffer-results-to-out-params{add-result-attr} puts on
/// out-parameters.
constexpr StringLiteral kResultAttr = "bufferize.result";

/// The kernels' product calls (Kernels.c): operand 0 is beta, operand 3
/// the result; the _update forms also write operand 4, the parameter.
bool isProductCall(func::CallOp call) {
  return call.getCallee().starts_with("pw_sgemm") && call.getNumOperands() > 3;
}

/// What `op` (with the ops nested in it) may read and write, as buffer
/// roots; `unknown` when it may touch any buffer. Unlike mayWriteBuffer
/// (MatmulUtils.h), it knows which operands the kernels' calls write, so
/// that a product may move past another, and it records reads too.
struct Access {
  llvm::SmallPtrSet<Value, 4> reads, writes;
  bool unknown = false;

  bool touches(const llvm::SmallPtrSetImpl<Value> &roots) const {
    if (unknown)
      return true;
    for (Value root : roots)
      if (reads.contains(root) || writes.contains(root))
        return true;
    return false;
  }
  bool writesAny(const llvm::SmallPtrSetImpl<Value> &roots) const {
    if (unknown)
      return true;
    for (Value root : roots)
      if (writes.contains(root))
        return true;
    return false;
  }
};

void addAccess(Operation *op, Access &access) {
  if (auto call = dyn_cast<func::CallOp>(op); call && isProductCall(call)) {
    bool update = call.getCallee().ends_with("_update");
    for (auto [i, operand] : llvm::enumerate(call.getOperands())) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      bool written = i == 3 || (update && i == 4);
      (written ? access.writes : access.reads).insert(rootBuffer(operand));
    }
    return;
  }
  if (isa<ViewLikeOpInterface, memref::TransposeOp>(op))
    return; // a view reads nothing
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects) {
    // Only the nested ops' effects, or unknown ones.
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      access.unknown = true;
  } else {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value value = effect.getValue();
      if (!value) {
        access.unknown = true;
        continue;
      }
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        access.reads.insert(rootBuffer(value));
      else if (!isa<MemoryEffects::Allocate>(effect.getEffect()))
        access.writes.insert(rootBuffer(value));
    }
  }
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      addAccess(&nested, access);
}

Access accessOf(Operation *op) {
  Access access;
  addAccess(op, access);
  return access;
}

/// A parameter's gradient in a backward function: the buffers that hold it
/// (the out-parameter, and in an accumulating variant its accumulator) and
/// the parameter.
struct Gradient {
  llvm::SmallPtrSet<Value, 2> buffers;
  BlockArgument param;
};

struct PipeFuseUpdatesPass
    : public pipewave::impl::PipeFuseUpdatesBase<PipeFuseUpdatesPass> {
  using PipeFuseUpdatesBase::PipeFuseUpdatesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (func::FuncOp stage : pipe::getDefinedStageFunctions(module)) {
      auto gradArgs = stage->getAttrOfType<DenseI64ArrayAttr>("pipe.grad_args");
      if (!gradArgs)
        continue;
      for (StringRef attr : {"pipe.bwd", kAccumulatingBwdAttr.data()}) {
        auto ref = stage->getAttrOfType<FlatSymbolRefAttr>(attr);
        if (!ref)
          continue;
        if (auto bwd = symbols.lookup<func::FuncOp>(ref.getValue()))
          fuse(stage, gradArgs.asArrayRef(), bwd);
      }
    }
  }

  /// The gradients of `bwd`'s parameters, by buffer.
  static llvm::DenseMap<Value, Gradient *>
  gradients(func::FuncOp stage, ArrayRef<int64_t> gradArgs, func::FuncOp bwd,
            SmallVectorImpl<std::unique_ptr<Gradient>> &storage) {
    llvm::DenseMap<Value, Gradient *> byBuffer;
    if (bwd.isExternal())
      return byBuffer;
    SmallVector<unsigned> outs;
    llvm::DenseMap<int64_t, unsigned> accumulators;
    for (unsigned i = 0; i < bwd.getNumArguments(); ++i) {
      if (bwd.getArgAttr(i, kResultAttr))
        outs.push_back(i);
      if (auto r = bwd.getArgAttrOfType<IntegerAttr>(i, kAccumulatesAttr))
        accumulators[r.getInt()] = i;
    }
    if (outs.size() != gradArgs.size())
      return byBuffer;
    for (auto [r, arg] : llvm::enumerate(gradArgs)) {
      // The parameter is the backward's argument at the stage's index (the
      // backward takes the stage's arguments first).
      if (arg < 0 || arg >= bwd.getNumArguments() ||
          arg >= stage.getNumArguments() ||
          !bwd.getArgAttr(arg, "pipe.param") ||
          bwd.getArgAttr(arg, "pipe.name") !=
              stage.getArgAttr(arg, "pipe.name"))
        continue;
      BlockArgument param = bwd.getArgument(arg);
      BlockArgument out = bwd.getArgument(outs[r]);
      if (param.getType() != out.getType())
        continue;
      auto gradient = std::make_unique<Gradient>();
      gradient->param = param;
      gradient->buffers.insert(out);
      if (auto it = accumulators.find(r); it != accumulators.end())
        gradient->buffers.insert(bwd.getArgument(it->second));
      for (Value buffer : gradient->buffers)
        byBuffer[buffer] = gradient.get();
      storage.push_back(std::move(gradient));
    }
    return byBuffer;
  }

  void fuse(func::FuncOp stage, ArrayRef<int64_t> gradArgs, func::FuncOp bwd) {
    SmallVector<std::unique_ptr<Gradient>> storage;
    llvm::DenseMap<Value, Gradient *> byBuffer =
        gradients(stage, gradArgs, bwd, storage);
    if (byBuffer.empty())
      return;
    Block &body = bwd.getBody().front();
    SmallVector<func::CallOp> products;
    for (auto call : body.getOps<func::CallOp>())
      if ((call.getCallee() == "pw_sgemm" ||
           call.getCallee() == "pw_sgemm_batched") &&
          call.getNumOperands() == 4)
        products.push_back(call);
    for (func::CallOp call : products) {
      auto it = byBuffer.find(rootBuffer(call.getOperand(3)));
      if (it == byBuffer.end() ||
          !memref::CastOp::areCastCompatible(it->second->param.getType(),
                                             call.getOperand(3).getType()))
        continue;
      if (Operation *after = placeOf(call, *it->second))
        rewrite(call, after, *it->second);
    }
  }

  /// Whether `op` is the copy of an accumulator into its own out-parameter
  /// (the same buffer at run time; pipe-stage-abi erases it).
  static bool isOwnCopy(Operation *op, const Gradient &gradient) {
    auto copy = dyn_cast<memref::CopyOp>(op);
    return copy && gradient.buffers.contains(rootBuffer(copy.getSource())) &&
           gradient.buffers.contains(rootBuffer(copy.getTarget()));
  }

  /// The op after which `call` may update the parameter (the call itself
  /// when it is already last), or null when it may not.
  static Operation *placeOf(func::CallOp call, const Gradient &gradient) {
    llvm::SmallPtrSet<Value, 1> param = {gradient.param};
    // The parameter is never written; reads of it after the call set the
    // place, writes of the gradient after it forbid any.
    Operation *lastRead = nullptr;
    for (Operation &op : call->getBlock()->getOperations()) {
      if (&op == call.getOperation())
        continue;
      Access access = accessOf(&op);
      if (access.writesAny(param))
        return nullptr;
      if (!call->isBeforeInBlock(&op))
        continue;
      if (!isOwnCopy(&op, gradient) && access.writesAny(gradient.buffers))
        return nullptr;
      if (access.touches(param))
        lastRead = &op;
    }
    if (!lastRead)
      return call;
    // Moving the call past the ops up to lastRead: none may write what it
    // reads or touch the gradient.
    llvm::SmallPtrSet<Value, 4> inputs;
    for (unsigned i = 1; i < 3; ++i)
      inputs.insert(rootBuffer(call.getOperand(i)));
    for (Operation *op = call->getNextNode(); op; op = op->getNextNode()) {
      Access access = accessOf(op);
      if (access.writesAny(inputs) || access.touches(gradient.buffers))
        return nullptr;
      if (op == lastRead)
        return op;
    }
    return nullptr;
  }

  void rewrite(func::CallOp call, Operation *after, const Gradient &gradient) {
    ModuleOp module = getOperation();
    std::string name = (call.getCallee() + "_update").str();
    Value c = call.getOperand(3);
    auto decl = module.lookupSymbol<func::FuncOp>(name);
    OpBuilder b(&getContext());
    if (!decl) {
      b.setInsertionPointToStart(module.getBody());
      SmallVector<Type> inputs(call.getOperandTypes());
      inputs.push_back(c.getType());
      decl = func::FuncOp::create(b, module.getLoc(), name,
                                  b.getFunctionType(inputs, {}));
      decl.setPrivate();
    }
    if (after == call.getOperation())
      b.setInsertionPoint(call);
    else
      b.setInsertionPointAfter(after);
    SmallVector<Value> operands(call.getOperands());
    operands.push_back(
        memref::CastOp::create(b, call.getLoc(), c.getType(), gradient.param));
    func::CallOp::create(b, call.getLoc(), decl, operands);
    call.erase();
  }
};

} // namespace
