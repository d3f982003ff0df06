//===- DappleModel.h - Internals shared by the DAPPLE planner ---*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of the planner (pipewave/Planner/Dapple.h) that its search
// (Dapple.cpp), its placement (DapplePlacement.cpp) and its stage cost and
// memory model (DappleModel.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_PLANNER_DAPPLEMODEL_H
#define PIPEWAVE_LIB_PLANNER_DAPPLEMODEL_H

#include "pipewave/Planner/Dapple.h"

#include <vector>

namespace pipewave::planner::detail {

/// Prefix sums over the layers of a profile.
class Layers {
public:
  explicit Layers(const ModelProfile &profile) : profile(profile) {
    int n = profile.numLayers();
    forward.assign(n + 1, 0);
    backward.assign(n + 1, 0);
    params.assign(n + 1, 0);
    outputs.assign(n + 1, 0);
    for (int i = 0; i < n; ++i) {
      const LayerProfile &layer = profile.layers[i];
      forward[i + 1] = forward[i] + layer.forwardSeconds;
      backward[i + 1] = backward[i] + layer.backwardSeconds;
      params[i + 1] = params[i] + layer.parameterBytes;
      outputs[i + 1] = outputs[i] + layer.outputBytes;
    }
  }

  int size() const { return profile.numLayers(); }
  double forwardOf(int h, int i) const { return forward[i] - forward[h]; }
  double backwardOf(int h, int i) const { return backward[i] - backward[h]; }
  double paramsOf(int h, int i) const { return params[i] - params[h]; }
  double outputsOf(int h, int i) const { return outputs[i] - outputs[h]; }
  /// Bytes entering a stage that starts at layer h (profile batch).
  double cutIn(int h) const {
    return h > 0 && h - 1 < static_cast<int>(profile.cutBytes.size())
               ? profile.cutBytes[h - 1]
               : 0;
  }
  /// Bytes leaving a stage that ends before layer i (profile batch).
  double cutOut(int i) const { return i < size() ? cutIn(i) : 0; }

  const ModelProfile &profile;

private:
  std::vector<double> forward, backward, params, outputs;
};

inline int ceilDiv(int a, int b) { return (a + b - 1) / b; }

/// Start position (in the policy's device order) of a stage of `replicas`
/// placed below `freeEnd` (positions [0, freeEnd) are free), or -1.
int placeStage(PlacementPolicy policy, const sim::Cluster &cluster, int freeEnd,
               int replicas);

/// The devices at positions [start, start + count) of `order`, ascending.
std::vector<int> devicesAt(const std::vector<int> &order, int start, int count);

/// Stash bytes per microbatch per device of a stage [h, i).
double stashPerMicrobatch(const Layers &layers, const PlannerOptions &options,
                          int h, int i, int samples);

/// A stage before costing: layers and devices.
struct Layout {
  int firstLayer;
  int endLayer;
  std::vector<int> devices;
};

/// Costs every stage of `layouts` exactly and runs the latency model.
Plan buildPlan(const Layers &layers, const PlannerOptions &options,
               PlacementPolicy policy, int microbatches,
               const std::vector<Layout> &layouts);

} // namespace pipewave::planner::detail

#endif // PIPEWAVE_LIB_PLANNER_DAPPLEMODEL_H
