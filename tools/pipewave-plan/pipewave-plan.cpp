//===- pipewave-plan.cpp - DAPPLE-style planner command line --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plans pipelined data-parallel training of a profiled model on a cluster
// (pipewave/Planner/Dapple.h) and prints the plan, the baselines and the
// predicted speedups; optionally writes the best plan's simulated step as a
// Chrome trace and an SVG timeline.
//
//   pipewave-plan --profile data/dapple-profiles/bert-24-pbs-6.txt \
//     --devices-per-node 8 --nodes 2 --global-batch 128 --memory 16GiB
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Dapple.h"
#include "pipewave/Planner/Profile.h"
#include "pipewave/Simulator/Device.h"
#include "pipewave/Simulator/Trace.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using namespace pipewave;
using namespace pipewave::planner;

namespace {

const char *const usage = R"(usage: pipewave-plan --profile FILE [options]

Plans pipelined data-parallel training (DAPPLE, PPoPP'21) of a model profiled
per layer in PipeDream's format (see data/dapple-profiles/README.md).

model:
  --profile FILE           layer profile (required)
  --profile-batch N        batch size the profile was measured at
                           (default: the N of "-pbs-N" in the file name)
  --activation-factor X    stash bytes per microbatch = X * profiled
                           activation bytes (default 1)
  --optimizer-state X      optimizer state as a multiple of the weights
                           (default 2, Adam)
cluster:
  --device NAME|FILE.json  cpu, v100, a100, h100, h200, a device calibrated
                           by pipewave-calibrate, or a device file in the
                           format of data/devices/*.json (default v100)
  --devices-per-node N     (default 8)
  --nodes N                (default 1)
  --memory SIZE            memory per device, e.g. 16GiB (default: device's)
  --intra-bw BW            intra-node bandwidth per device and direction,
                           e.g. 150GB/s (default: device's)
  --inter-bw BW            inter-node bandwidth per node and direction,
                           e.g. 100Gb/s (default: device's)
  --intra-latency SECONDS  (default: device's)
  --inter-latency SECONDS  (default: device's)
search:
  --global-batch N         samples per step (default 128)
  --policy P               fresh, append, scatter or all (default all)
  --max-stages N           most pipeline stages (default: devices)
  --min-replica-batch N    fewest samples per replica and microbatch for a
                           replicated stage (default 1)
  --microbatches N         only this microbatch count (default: every
                           divisor of the global batch)
  --simulate-top K         candidates to simulate event by event
                           (default 128)
output:
  --candidates N           also list the N best candidates (default 5)
  --trace FILE             Chrome/Perfetto trace JSON of the best plan's step
  --svg FILE               SVG timeline of the best plan's step
  --help
)";

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "pipewave-plan: %s\n", message.c_str());
  std::exit(2);
}

int parseInt(const std::string &flag, const std::string &text, int least) {
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end || value < least || value > 1000000000)
    die(flag + " expects an integer >= " + std::to_string(least) + ", got '" +
        text + "'");
  return static_cast<int>(value);
}

double parseDouble(const std::string &flag, const std::string &text) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end || !(value >= 0))
    die(flag + " expects a non-negative number, got '" + text + "'");
  return value;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

std::string planLine(const Plan &plan) {
  std::string text;
  for (int s = 0; s < plan.numStages(); ++s) {
    const StagePlan &stage = plan.stages[s];
    text += (s ? " | " : "") +
            std::to_string(stage.endLayer - stage.firstLayer) + "L x" +
            std::to_string(stage.replicas());
  }
  return text;
}

} // namespace

int main(int argc, char **argv) {
  std::string profilePath, deviceName = "v100", tracePath, svgPath;
  std::string policyText = "all";
  int profileBatch = 0, devicesPerNode = 8, nodes = 1, candidatesShown = 5;
  std::optional<double> memory, intraBandwidth, interBandwidth, intraLatency,
      interLatency;
  PlannerOptions options;

  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    size_t equals = flag.find('=');
    if (flag.rfind("--", 0) == 0 && equals != std::string::npos) {
      value = flag.substr(equals + 1);
      flag = flag.substr(0, equals);
    } else if (flag != "--help" && flag != "-h") {
      if (i + 1 >= args.size())
        die(flag + " needs a value (try --help)");
      value = args[++i];
    }
    if (flag == "--help" || flag == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else if (flag == "--profile") {
      profilePath = value;
    } else if (flag == "--profile-batch") {
      profileBatch = parseInt(flag, value, 1);
    } else if (flag == "--activation-factor") {
      options.activationFactor = parseDouble(flag, value);
    } else if (flag == "--optimizer-state") {
      options.optimizerStateFactor = parseDouble(flag, value);
    } else if (flag == "--device") {
      deviceName = value;
    } else if (flag == "--devices-per-node") {
      devicesPerNode = parseInt(flag, value, 1);
    } else if (flag == "--nodes") {
      nodes = parseInt(flag, value, 1);
    } else if (flag == "--memory") {
      memory = sim::parseBytes(value);
      if (!memory)
        die("--memory expects a size such as 16GiB, got '" + value + "'");
    } else if (flag == "--intra-bw" || flag == "--inter-bw") {
      std::optional<double> bandwidth = sim::parseBandwidth(value);
      if (!bandwidth || *bandwidth <= 0)
        die(flag + " expects a bandwidth such as 100Gb/s or 25GB/s, got '" +
            value + "'");
      (flag == "--intra-bw" ? intraBandwidth : interBandwidth) = bandwidth;
    } else if (flag == "--intra-latency") {
      intraLatency = parseDouble(flag, value);
    } else if (flag == "--inter-latency") {
      interLatency = parseDouble(flag, value);
    } else if (flag == "--global-batch") {
      options.globalBatch = parseInt(flag, value, 1);
    } else if (flag == "--policy") {
      policyText = value;
    } else if (flag == "--min-replica-batch") {
      options.minSamplesPerReplica = parseInt(flag, value, 1);
    } else if (flag == "--max-stages") {
      options.maxStages = parseInt(flag, value, 1);
    } else if (flag == "--microbatches") {
      options.microbatchCounts = {parseInt(flag, value, 1)};
    } else if (flag == "--simulate-top") {
      options.simulateTop = parseInt(flag, value, 0);
    } else if (flag == "--candidates") {
      candidatesShown = parseInt(flag, value, 0);
    } else if (flag == "--trace") {
      tracePath = value;
    } else if (flag == "--svg") {
      svgPath = value;
    } else {
      die("unknown option '" + flag + "' (try --help)");
    }
  }
  if (profilePath.empty())
    die("--profile is required (try --help)");

  std::string error;
  std::optional<sim::DeviceSpec> device = sim::lookupDevice(deviceName, error);
  if (!device)
    die(error);

  options.cluster = sim::Cluster::of(*device, devicesPerNode, nodes);
  if (memory)
    options.cluster.memoryBytes = *memory;
  if (intraBandwidth)
    options.cluster.intraNode.bytesPerSecond = *intraBandwidth;
  if (interBandwidth)
    options.cluster.interNode.bytesPerSecond = *interBandwidth;
  if (intraLatency)
    options.cluster.intraNode.latencySeconds = *intraLatency;
  if (interLatency)
    options.cluster.interNode.latencySeconds = *interLatency;
  if (policyText != "all") {
    std::optional<PlacementPolicy> policy = parsePlacementPolicy(policyText);
    if (!policy)
      die("--policy expects fresh, append, scatter or all, got '" + policyText +
          "'");
    options.policies = {*policy};
  }

  std::optional<ModelProfile> profile =
      loadPipeDreamProfile(profilePath, profileBatch, &error);
  if (!profile)
    die(error);

  const sim::Cluster &cluster = options.cluster;
  std::printf("profile: %s, %d layers at batch %d: forward %s, backward %s, "
              "%s of parameters\n",
              profile->name.c_str(), profile->numLayers(),
              profile->profileBatch,
              sim::formatSeconds(profile->totalForwardSeconds()).c_str(),
              sim::formatSeconds(profile->totalBackwardSeconds()).c_str(),
              sim::formatBytes(profile->totalParameterBytes()).c_str());
  std::printf("cluster: %d node%s x %d %s (%s), %s per device; intra-node "
              "%.1f GB/s + %s, inter-node %.2f GB/s + %s\n",
              cluster.nodes, cluster.nodes == 1 ? "" : "s",
              cluster.devicesPerNode, cluster.device.name.c_str(),
              cluster.device.description.c_str(),
              sim::formatBytes(cluster.memoryBytes).c_str(),
              cluster.intraNode.bytesPerSecond / 1e9,
              sim::formatSeconds(cluster.intraNode.latencySeconds).c_str(),
              cluster.interNode.bytesPerSecond / 1e9,
              sim::formatSeconds(cluster.interNode.latencySeconds).c_str());
  std::printf("global batch %d\n\n", options.globalBatch);

  PlanResult result = planDapple(*profile, options);
  if (!result.best) {
    std::printf("no plan: %s\n", result.error.c_str());
    return 1;
  }
  const Plan &best = *result.best;
  std::printf("best plan: %s\n", describePlan(*profile, best).c_str());

  auto baseline = [&](const char *name, const Baseline &b, double speedup) {
    if (!b.fits) {
      std::printf("%-22s does not fit in %s per device\n", name,
                  sim::formatBytes(cluster.memoryBytes).c_str());
      return;
    }
    std::printf("%-22s step %-10s (%d microbatch%s, %s per device); plan "
                "speedup %.2fx\n",
                name, sim::formatSeconds(b.stepSeconds).c_str(), b.microbatches,
                b.microbatches == 1 ? "" : "es",
                sim::formatBytes(b.peakMemoryBytes).c_str(), speedup);
  };
  baseline("single device:", result.singleDevice,
           result.speedupOverSingleDevice);
  std::string dpName =
      "data parallel (" + std::to_string(cluster.numDevices()) + "):";
  baseline(dpName.c_str(), result.dataParallel, result.speedupOverDataParallel);
  std::printf("planning: %d pipelines costed, %zu kept, %.2f s\n",
              result.candidatesEvaluated, result.candidates.size(),
              result.planningSeconds);

  if (candidatesShown > 0) {
    std::printf("\nbest candidates (layers x replicas per stage):\n");
    for (int c = 0;
         c < candidatesShown && c < static_cast<int>(result.candidates.size());
         ++c) {
      const Plan &plan = result.candidates[c];
      std::printf("  %2d. %-13s M=%-3d est %-9s sim %-9s %s\n", c + 1,
                  stringify(plan.policy), plan.microbatches,
                  sim::formatSeconds(plan.estimatedSeconds).c_str(),
                  plan.simulatedSeconds > 0
                      ? sim::formatSeconds(plan.simulatedSeconds).c_str()
                      : "-",
                  planLine(plan).c_str());
    }
  }

  if (!tracePath.empty() || !svgPath.empty()) {
    schedule::Program program;
    sim::SimReport report = simulatePlan(*profile, options, best, &program);
    if (!report.error.empty())
      die("simulating the best plan: " + report.error);
    if (!tracePath.empty()) {
      if (!writeFile(tracePath, sim::chromeTrace(program, report)))
        die("cannot write '" + tracePath + "'");
      std::printf("\nwrote %s\n", tracePath.c_str());
    }
    if (!svgPath.empty()) {
      sim::SvgOptions svgOptions;
      svgOptions.title = profile->name + ": " +
                         std::to_string(best.numStages()) + " stages, " +
                         std::to_string(best.microbatches) + " microbatches, " +
                         stringify(best.policy);
      if (!writeFile(svgPath, sim::svgTimeline(program, report, svgOptions)))
        die("cannot write '" + svgPath + "'");
      std::printf("wrote %s\n", svgPath.c_str());
    }
  }
  return 0;
}
