//===- InsertComm.cpp - pipe-insert-comm: sends and receives at cuts ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// In the stage composition of the entry function, routes every value that
// one stage's call produces and another stage's call consumes through a
// pipe.send / pipe.recv pair with a unique tag.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPEINSERTCOMM
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

namespace {

/// The stage of the function a call calls, or -1.
int64_t getCalleeStage(func::CallOp call, SymbolTableCollection &symbols) {
  auto callee =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee ? getStage(callee) : -1;
}

struct PipeInsertCommPass
    : public pipe::impl::PipeInsertCommBase<PipeInsertCommPass> {
  using PipeInsertCommBase::PipeInsertCommBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp fn = lookupEntry(module, entry, "pipe-insert-comm");
    if (!fn)
      return signalPassFailure();

    SymbolTableCollection symbols;
    SmallVector<func::CallOp> calls;
    for (auto call : fn.getBody().front().getOps<func::CallOp>())
      if (getCalleeStage(call, symbols) >= 0)
        calls.push_back(call);
    if (calls.empty()) {
      fn.emitError() << "pipe-insert-comm: '@" << entry
                     << "' calls no stage function; run pipe-outline-stages "
                        "first";
      return signalPassFailure();
    }

    // Continue numbering after tags already in the module, so the pass can
    // run again after more stages were outlined.
    int64_t nextTag = 0;
    module.walk([&](Operation *op) {
      if (auto send = dyn_cast<SendOp>(op))
        nextTag = std::max<int64_t>(nextTag, send.getTag() + 1);
      else if (auto recv = dyn_cast<RecvOp>(op))
        nextTag = std::max<int64_t>(nextTag, recv.getTag() + 1);
    });

    OpBuilder builder(module.getContext());
    // Where the next send after each producer goes, so sends keep tag order.
    DenseMap<Operation *, Operation *> lastSend;
    for (func::CallOp consumer : calls) {
      int64_t to = getCalleeStage(consumer, symbols);
      for (OpOperand &operand : consumer->getOpOperands()) {
        auto producer = operand.get().getDefiningOp<func::CallOp>();
        if (!producer)
          continue;
        int64_t from = getCalleeStage(producer, symbols);
        if (from < 0 || from == to)
          continue;
        Payload payload = from < to ? Payload::Activation : Payload::Gradient;
        Value value = operand.get();
        int64_t tag = nextTag++;

        Operation *&after = lastSend[producer];
        if (!after)
          after = producer;
        builder.setInsertionPointAfter(after);
        after = SendOp::create(builder, consumer.getLoc(), value, payload, from,
                               to, tag);

        builder.setInsertionPoint(consumer);
        auto recv = RecvOp::create(builder, consumer.getLoc(), value.getType(),
                                   payload, from, to, tag);
        operand.set(recv.getResult());
      }
    }
  }
};

} // namespace
