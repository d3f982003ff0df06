//===- SchedOps.cpp - Operations of the sched dialect ---------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Verifiers check local properties only: ranges of stages, microbatches and
// peers, and that an action's stage is held by its rank. Whole-program
// properties (completeness, matching, deadlock freedom) are sched-verify's.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Sched/IR/Sched.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace pipewave::sched;

LogicalResult ProgramOp::verifyRegions() {
  int64_t expected = 0;
  for (Operation &op : getBody().front()) {
    auto rank = dyn_cast<RankOp>(op);
    if (!rank)
      return op.emitOpError() << "is not allowed in a sched.program; only "
                                 "sched.rank";
    if (static_cast<int64_t>(rank.getRank()) != expected)
      return rank.emitOpError() << "ranks must be listed in order 0, 1, ...: "
                                   "expected rank "
                                << expected << ", got " << rank.getRank();
    ++expected;
  }
  if (expected == 0)
    return emitOpError() << "has no ranks";
  return success();
}

bool RankOp::holdsStage(int64_t stage) {
  return llvm::is_contained(getStages(), stage);
}

LogicalResult RankOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  ArrayRef<int64_t> stages = getStages();
  if (stages.empty())
    return emitOpError() << "holds no stage";
  for (auto [i, stage] : llvm::enumerate(stages)) {
    if (stage < 0 || stage >= static_cast<int64_t>(program.getStages()))
      return emitOpError() << "holds stage " << stage
                           << ", but the program has stages 0.."
                           << program.getStages() - 1;
    if (i > 0 && stages[i - 1] >= stage)
      return emitOpError() << "stages must be sorted and unique";
  }
  for (Operation &op : getBody().front())
    if (!isa<ComputeOp, SendOp, RecvOp, AllReduceOp, TiedAllReduceOp,
             OptimizerOp>(op))
      return op.emitOpError()
             << "is not allowed in a sched.rank; only the actions "
                "sched.compute, sched.send, sched.recv, sched.allreduce, "
                "sched.tied_allreduce and sched.optimizer";
  return success();
}

/// Checks that `stage` is held by the enclosing rank and that `mb` (when not
/// negative) is a microbatch of the program.
static LogicalResult verifyStageAndMicrobatch(Operation *op, int64_t stage,
                                              std::optional<int64_t> mb) {
  auto rank = op->getParentOfType<RankOp>();
  auto program = rank->getParentOfType<ProgramOp>();
  if (!rank.holdsStage(stage))
    return op->emitOpError() << "acts on stage " << stage << ", which rank "
                             << rank.getRank() << " does not hold";
  if (mb && *mb >= static_cast<int64_t>(program.getMicrobatches()))
    return op->emitOpError() << "microbatch " << *mb << " is out of range 0.."
                             << program.getMicrobatches() - 1;
  return success();
}

/// Checks that `peer` is another rank of the program.
static LogicalResult verifyPeer(Operation *op, int64_t peer) {
  auto rank = op->getParentOfType<RankOp>();
  auto program = rank->getParentOfType<ProgramOp>();
  int64_t numRanks = llvm::range_size(program.getBody().front());
  if (peer < 0 || peer >= numRanks)
    return op->emitOpError()
           << "peer rank " << peer << " is out of range 0.." << numRanks - 1;
  if (peer == static_cast<int64_t>(rank.getRank()))
    return op->emitOpError() << "rank " << peer << " talks to itself";
  return success();
}

LogicalResult ComputeOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  if (program.getForwardOnly() && getKind() != ComputeKind::F)
    return emitOpError() << "a forward_only program has no "
                         << stringifyComputeKind(getKind()) << " actions";
  return verifyStageAndMicrobatch(*this, getStage(), getMb());
}

LogicalResult SendOp::verify() {
  if (failed(verifyStageAndMicrobatch(*this, getStage(), getMb())) ||
      failed(verifyPeer(*this, getTo())))
    return failure();
  return success();
}

LogicalResult RecvOp::verify() {
  if (failed(verifyStageAndMicrobatch(*this, getStage(), getMb())) ||
      failed(verifyPeer(*this, getFrom())))
    return failure();
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (failed(verifyStageAndMicrobatch(*this, getStage(), std::nullopt)))
    return failure();
  auto rank = (*this)->getParentOfType<RankOp>();
  ArrayRef<int64_t> ranks = getRanks();
  if (!llvm::is_contained(ranks, static_cast<int64_t>(rank.getRank())))
    return emitOpError() << "group " << "does not contain its own rank "
                         << rank.getRank();
  for (size_t i = 1; i < ranks.size(); ++i)
    if (ranks[i - 1] >= ranks[i])
      return emitOpError() << "ranks must be sorted and unique";
  auto program = rank->getParentOfType<ProgramOp>();
  int64_t numRanks = llvm::range_size(program.getBody().front());
  for (int64_t member : ranks)
    if (member < 0 || member >= numRanks)
      return emitOpError() << "group member rank " << member
                           << " is out of range 0.." << numRanks - 1;
  return success();
}

LogicalResult TiedAllReduceOp::verify() {
  if (failed(verifyStageAndMicrobatch(*this, getStage(), std::nullopt)))
    return failure();
  if (getParam().empty())
    return emitOpError() << "names no parameter";
  ArrayRef<int64_t> users = getUsers();
  if (users.size() < 2)
    return emitOpError() << "needs two or more user stages";
  for (size_t i = 1; i < users.size(); ++i)
    if (users[i - 1] >= users[i])
      return emitOpError() << "users must be sorted and unique";
  auto rank = (*this)->getParentOfType<RankOp>();
  std::optional<int64_t> lowest;
  for (int64_t stage : users)
    if (rank.holdsStage(stage)) {
      lowest = stage;
      break;
    }
  if (!lowest || *lowest != static_cast<int64_t>(getStage()))
    return emitOpError() << "stage " << getStage()
                         << " is not the lowest user stage rank "
                         << rank.getRank() << " holds";
  ArrayRef<int64_t> ranks = getRanks();
  if (!llvm::is_contained(ranks, static_cast<int64_t>(rank.getRank())))
    return emitOpError() << "group does not contain its own rank "
                         << rank.getRank();
  for (size_t i = 1; i < ranks.size(); ++i)
    if (ranks[i - 1] >= ranks[i])
      return emitOpError() << "ranks must be sorted and unique";
  return success();
}

LogicalResult OptimizerOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  if (program.getForwardOnly())
    return emitOpError() << "a forward_only program has no optimizer step";
  return verifyStageAndMicrobatch(*this, getStage(), std::nullopt);
}

#define GET_OP_CLASSES
#include "pipewave/Dialect/Sched/IR/SchedOps.cpp.inc"
