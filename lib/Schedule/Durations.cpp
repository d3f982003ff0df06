//===- Durations.cpp - How long each kind of compute action takes ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Durations.h"

namespace pipewave::schedule {

double ActionDurations::of(ActionKind kind) const {
  switch (kind) {
  case ActionKind::Forward:
    return forward;
  case ActionKind::Backward:
    return backward;
  case ActionKind::BackwardInput:
    return backwardInput;
  case ActionKind::BackwardWeight:
    return backwardWeight;
  case ActionKind::OptimizerStep:
    return optimizer;
  case ActionKind::Send:
  case ActionKind::Recv:
  case ActionKind::AllReduce:
  case ActionKind::TiedAllReduce:
    return 0;
  }
  return 0;
}

} // namespace pipewave::schedule
