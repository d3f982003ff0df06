//===- Durations.h - How long each kind of compute action takes -*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The durations both timing models of a Program share: the uniform timeline
// (pipewave/Schedule/Timeline.h, one set for every stage) and the cost
// simulator (pipewave/Simulator/Simulator.h, one set per stage, with sizes).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_DURATIONS_H
#define PIPEWAVE_SCHEDULE_DURATIONS_H

#include "pipewave/Schedule/Program.h"

namespace pipewave::schedule {

/// Duration of each kind of compute action of a stage, in any unit of time
/// (the simulators use seconds).
struct ActionDurations {
  double forward = 0;
  double backward = 0;
  double backwardInput = 0;
  double backwardWeight = 0;
  double optimizer = 0;

  /// The duration of an action of `kind`: forward, backward, backwardInput,
  /// backwardWeight or optimizer for F, B, I, W and OptimizerStep; 0 for
  /// Send, Recv and AllReduce, which each timing model costs its own way.
  double of(ActionKind kind) const;
};

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_DURATIONS_H
