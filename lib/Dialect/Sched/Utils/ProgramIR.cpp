//===- ProgramIR.cpp - sched IR <-> schedule::Program ---------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::sched;
using schedule::Action;
using schedule::ActionKind;

static Payload toIR(schedule::Payload payload) {
  return payload == schedule::Payload::Activation ? Payload::Activation
                                                  : Payload::Gradient;
}

static schedule::Payload fromIR(Payload payload) {
  return payload == Payload::Activation ? schedule::Payload::Activation
                                        : schedule::Payload::Gradient;
}

static void buildAction(OpBuilder &builder, Location loc,
                        const Action &action) {
  auto compute = [&](ComputeKind kind) {
    ComputeOp::create(builder, loc, kind, action.stage, action.microbatch);
  };
  switch (action.kind) {
  case ActionKind::Forward:
    return compute(ComputeKind::F);
  case ActionKind::Backward:
    return compute(ComputeKind::B);
  case ActionKind::BackwardInput:
    return compute(ComputeKind::I);
  case ActionKind::BackwardWeight:
    return compute(ComputeKind::W);
  case ActionKind::Send:
    SendOp::create(builder, loc, toIR(action.payload), action.stage,
                   action.microbatch, action.peer, action.tag);
    return;
  case ActionKind::Recv:
    RecvOp::create(builder, loc, toIR(action.payload), action.stage,
                   action.microbatch, action.peer, action.tag);
    return;
  case ActionKind::AllReduce: {
    SmallVector<int64_t> group(action.group.begin(), action.group.end());
    AllReduceOp::create(builder, loc, action.stage, group);
    return;
  }
  case ActionKind::OptimizerStep:
    OptimizerOp::create(builder, loc, action.stage);
    return;
  case ActionKind::TiedAllReduce: {
    SmallVector<int64_t> users(action.users.begin(), action.users.end());
    SmallVector<int64_t> group(action.group.begin(), action.group.end());
    TiedAllReduceOp::create(builder, loc, action.param, action.stage, users,
                            group);
    return;
  }
  }
}

ProgramOp pipewave::sched::buildProgramOp(OpBuilder &builder, Location loc,
                                          const schedule::Program &program) {
  auto programOp =
      ProgramOp::create(builder, loc, program.schedule, program.numStages,
                        program.numMicrobatches, program.forwardOnly);
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&programOp.getBody());
  for (const schedule::RankProgram &rank : program.ranks) {
    SmallVector<int64_t> stages(rank.stages.begin(), rank.stages.end());
    auto rankOp = RankOp::create(builder, loc, rank.rank, stages);
    OpBuilder::InsertionGuard rankGuard(builder);
    builder.createBlock(&rankOp.getBody());
    for (const Action &action : rank.actions)
      buildAction(builder, loc, action);
  }
  return programOp;
}

static Action readAction(Operation *op) {
  Action action;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](ComputeOp compute) {
        static const ActionKind kinds[] = {
            ActionKind::Forward, ActionKind::Backward,
            ActionKind::BackwardInput, ActionKind::BackwardWeight};
        action.kind = kinds[static_cast<int>(compute.getKind())];
        action.stage = compute.getStage();
        action.microbatch = compute.getMb();
      })
      .Case([&](SendOp send) {
        action.kind = ActionKind::Send;
        action.stage = send.getStage();
        action.microbatch = send.getMb();
        action.payload = fromIR(send.getPayload());
        action.peer = send.getTo();
        action.tag = send.getTag();
      })
      .Case([&](RecvOp recv) {
        action.kind = ActionKind::Recv;
        action.stage = recv.getStage();
        action.microbatch = recv.getMb();
        action.payload = fromIR(recv.getPayload());
        action.peer = recv.getFrom();
        action.tag = recv.getTag();
      })
      .Case([&](AllReduceOp allReduce) {
        action.kind = ActionKind::AllReduce;
        action.stage = allReduce.getStage();
        action.group.assign(allReduce.getRanks().begin(),
                            allReduce.getRanks().end());
      })
      .Case([&](TiedAllReduceOp tied) {
        action.kind = ActionKind::TiedAllReduce;
        action.param = tied.getParam().str();
        action.stage = tied.getStage();
        action.users.assign(tied.getUsers().begin(), tied.getUsers().end());
        action.group.assign(tied.getRanks().begin(), tied.getRanks().end());
      })
      .Case([&](OptimizerOp optimizer) {
        action.kind = ActionKind::OptimizerStep;
        action.stage = optimizer.getStage();
      });
  return action;
}

ProgramFromIR pipewave::sched::readProgramOp(ProgramOp op) {
  ProgramFromIR result;
  schedule::Program &program = result.program;
  program.schedule = op.getSchedule().str();
  program.numStages = op.getStages();
  program.numMicrobatches = op.getMicrobatches();
  program.forwardOnly = op.getForwardOnly();
  for (auto rankOp : op.getBody().front().getOps<RankOp>()) {
    schedule::RankProgram rank;
    rank.rank = rankOp.getRank();
    rank.stages.assign(rankOp.getStages().begin(), rankOp.getStages().end());
    std::vector<Operation *> ops;
    for (Operation &action : rankOp.getBody().front()) {
      rank.actions.push_back(readAction(&action));
      ops.push_back(&action);
    }
    program.ranks.push_back(std::move(rank));
    result.ops.push_back(std::move(ops));
    result.rankOps.push_back(rankOp);
  }
  return result;
}
