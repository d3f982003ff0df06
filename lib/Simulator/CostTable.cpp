//===- CostTable.cpp - The simulator's inputs: costs and placement --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The helpers of the simulator's inputs (Simulator.h): a table of uniform
// stage costs, the bytes of a stage's messages, and one device per rank.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Simulator.h"

#include <algorithm>

namespace pipewave::sim {

using schedule::Payload;

CostTable CostTable::uniform(int numStages,
                             const schedule::UniformCosts &costs) {
  CostTable table;
  StageCosts stage;
  static_cast<schedule::ActionDurations &>(stage) = costs;
  table.stages.assign(std::max(0, numStages), stage);
  return table;
}

double CostTable::messageBytes(Payload payload, int stage) const {
  if (stage < 0 || stage >= static_cast<int>(stages.size()))
    return 0;
  if (payload == Payload::Activation)
    return stages[stage].activationBytes;
  if (stages[stage].gradientBytes >= 0)
    return stages[stage].gradientBytes;
  return stage > 0 ? stages[stage - 1].activationBytes : 0;
}

Placement Placement::onePerRank(int numRanks) {
  Placement placement;
  for (int r = 0; r < numRanks; ++r)
    placement.devices.push_back({r});
  return placement;
}

} // namespace pipewave::sim
