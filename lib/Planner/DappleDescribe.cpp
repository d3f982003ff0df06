//===- DappleDescribe.cpp - Human-readable DAPPLE plans -------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Dapple.h"

#include <cstdio>

namespace pipewave::planner {

namespace {

std::string rangeText(const std::vector<int> &devices) {
  if (devices.empty())
    return "-";
  bool contiguous =
      devices.back() - devices.front() + 1 == static_cast<int>(devices.size());
  if (devices.size() == 1)
    return std::to_string(devices[0]);
  if (contiguous)
    return std::to_string(devices.front()) + "-" +
           std::to_string(devices.back());
  std::string text;
  for (size_t i = 0; i < devices.size(); ++i)
    text += (i ? "," : "") + std::to_string(devices[i]);
  return text;
}

} // namespace

std::string describePlan(const ModelProfile &profile, const Plan &plan) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "%d stage%s, %d microbatches of %d, %s placement, %d "
                "devices\n",
                plan.numStages(), plan.numStages() == 1 ? "" : "s",
                plan.microbatches, plan.microbatchSize, stringify(plan.policy),
                plan.devicesUsed());
  out += line;
  std::snprintf(line, sizeof line,
                "  %-5s %-9s %-30s %4s %-14s %9s %9s %9s %9s %10s\n", "stage",
                "layers", "first .. last layer", "repl", "devices", "F/mb",
                "B/mb", "send/mb", "allreduce", "memory");
  out += line;
  for (int s = 0; s < plan.numStages(); ++s) {
    const StagePlan &stage = plan.stages[s];
    std::string names;
    if (stage.endLayer > stage.firstLayer &&
        stage.endLayer <= profile.numLayers()) {
      auto shorten = [](std::string name) {
        if (name.size() > 13)
          name = name.substr(0, 12) + "~";
        return name;
      };
      names = shorten(profile.layers[stage.firstLayer].name) + " .. " +
              shorten(profile.layers[stage.endLayer - 1].name);
    }
    std::string layers = std::to_string(stage.firstLayer) + "-" +
                         std::to_string(stage.endLayer - 1);
    std::snprintf(
        line, sizeof line, "  %-5d %-9s %-30s %4d %-14s %9s %9s %9s %9s %10s\n",
        s, layers.c_str(), names.c_str(), stage.replicas(),
        rangeText(stage.devices).c_str(),
        sim::formatSeconds(stage.forwardSeconds).c_str(),
        sim::formatSeconds(stage.backwardSeconds).c_str(),
        stage.sendSeconds > 0 ? sim::formatSeconds(stage.sendSeconds).c_str()
                              : "-",
        stage.allReduceSeconds > 0
            ? sim::formatSeconds(stage.allReduceSeconds).c_str()
            : "-",
        sim::formatBytes(stage.memory.total()).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  latency model: pivot stage %d, warm-up %s + steady %s + "
                "ending %s = %s\n",
                plan.pivotStage, sim::formatSeconds(plan.warmupSeconds).c_str(),
                sim::formatSeconds(plan.steadySeconds).c_str(),
                sim::formatSeconds(plan.endingSeconds).c_str(),
                sim::formatSeconds(plan.estimatedSeconds).c_str());
  out += line;
  if (plan.simulatedSeconds > 0) {
    std::snprintf(line, sizeof line,
                  "  simulated: step %s, bubble %.1f%%, peak memory %s per "
                  "device\n",
                  sim::formatSeconds(plan.simulatedSeconds).c_str(),
                  100 * plan.simulatedBubble,
                  sim::formatBytes(plan.peakMemoryBytes).c_str());
    out += line;
  }
  return out;
}

} // namespace pipewave::planner
