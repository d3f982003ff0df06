//===- simulate-calibrated.cpp - Simulate a schedule with given durations -===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Runs the pipeline simulator (lib/Simulator) on an action list with
// per-stage durations given in a file instead of the cost model, and prints
// the simulated step time and bubble fraction. bench/sim-vs-measured/run.sh
// feeds it the program of a compiled model (sched-export) and the durations
// measured in that model's runtime trace.
//
//   pipewave-sim-calibrated ACTIONS COSTS [DEVICE] [--timeline]
//
// ACTIONS: an action list (docs/schedule-format.md). COSTS: one line per
// stage, `stage forward backward backward_input backward_weight optimizer
// activation_bytes [check]` (seconds, bytes; `#` starts a comment; check:
// the stage's share of its rank's non-finite scan before the step's
// agreement, default 0; a GPU's only: a CPU's ranks agree after their
// updates, which check the gradients they read). A line `table` starts another
// set of durations for the same program (compare.py gives one per measured
// step); each is simulated in turn. DEVICE: the device whose links carry the
// messages, a name (a calibrated one too) or a .json file (default cpu); ranks
// are devices of one node.
//
// Output: for each table, `step_time_s T` and `bubble_fraction F`, one
// per line; with --timeline then every rank's simulated actions, one per line:
// `rank R START_US END_US ACTION` (to set beside the measured trace).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/ActionList.h"
#include "pipewave/Simulator/Simulator.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace pipewave;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "pipewave-sim-calibrated: error: %s\n", message.c_str());
  return 1;
}

bool readFile(const std::string &path, std::string &text) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

} // namespace

int main(int argc, char **argv) {
  bool timeline = argc > 3 && std::string(argv[argc - 1]) == "--timeline";
  if (timeline)
    --argc;
  if (argc < 3 || argc > 4)
    return fail(
        "usage: pipewave-sim-calibrated ACTIONS COSTS [DEVICE] [--timeline]");
  std::string actions, costsText;
  if (!readFile(argv[1], actions))
    return fail(std::string("cannot read ") + argv[1]);
  if (!readFile(argv[2], costsText))
    return fail(std::string("cannot read ") + argv[2]);

  schedule::BuildResult built = schedule::parseActionList(actions);
  if (!built)
    return fail(std::string(argv[1]) + ": " + built.error);
  const schedule::Program &program = *built.program;

  std::vector<sim::CostTable> tables;
  std::vector<std::vector<bool>> seen;
  auto startTable = [&] {
    tables.emplace_back();
    tables.back().stages.resize(program.numStages);
    // pipewave-run's agreement on non-finite values.
    tables.back().stepAgreement = true;
    seen.emplace_back(program.numStages, false);
  };
  auto where = [&](int lineNo) {
    return std::string(argv[2]) + ":" + std::to_string(lineNo) + ": ";
  };
  std::istringstream lines(costsText);
  std::string line;
  int lineNo = 0;
  while (std::getline(lines, line)) {
    ++lineNo;
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.erase(hash);
    std::istringstream fields(line);
    std::string first;
    if (!(fields >> first))
      continue;
    if (first == "table") {
      startTable();
      continue;
    }
    int stage = 0;
    const char *end = first.data() + first.size();
    if (std::from_chars(first.data(), end, stage).ptr != end)
      return fail(where(lineNo) + "expected a stage number or 'table', got '" +
                  first + "'");
    if (tables.empty())
      startTable();
    if (stage < 0 || stage >= program.numStages)
      return fail(where(lineNo) + "stage " + std::to_string(stage) +
                  " is not a stage of the program");
    sim::StageCosts &c = tables.back().stages[stage];
    if (!(fields >> c.forward >> c.backward >> c.backwardInput >>
          c.backwardWeight >> c.optimizer >> c.activationBytes))
      return fail(where(lineNo) +
                  "expected stage forward backward backward_input "
                  "backward_weight optimizer activation_bytes [check]");
    if (!(fields >> c.checkSeconds))
      c.checkSeconds = 0;
    seen.back()[stage] = true;
  }
  if (tables.empty())
    return fail(std::string(argv[2]) + ": no durations");
  for (size_t t = 0; t < tables.size(); ++t)
    for (int s = 0; s < program.numStages; ++s)
      if (!seen[t][s])
        return fail(std::string(argv[2]) + ": table " + std::to_string(t + 1) +
                    " has no line for stage " + std::to_string(s));

  std::string deviceName = argc == 4 ? argv[3] : "cpu";
  std::string error;
  std::optional<sim::DeviceSpec> device = sim::lookupDevice(deviceName, error);
  if (!device)
    return fail("device '" + deviceName + "': " + error);
  // The durations were measured as the ranks ran, sharing the cores or not:
  // no further stretching for oversubscription.
  if (device->calibration)
    device->calibration->cores = 0;
  // On a CPU the ranks agree after their updates, which check the gradients
  // they read; a GPU's scan them and agree before.
  for (sim::CostTable &costs : tables)
    costs.agreementAfterUpdates = device->isCpu();
  int numRanks = static_cast<int>(program.ranks.size());
  sim::Cluster cluster = sim::Cluster::of(*device, numRanks, 1);

  for (const sim::CostTable &costs : tables) {
    sim::SimReport report = sim::simulate(program, costs, cluster);
    if (!report.error.empty())
      return fail(report.error);
    std::printf("step_time_s %.9g\nbubble_fraction %.6f\n", report.stepTime,
                report.bubbleFraction);
    if (timeline)
      for (int r = 0; r < numRanks; ++r)
        for (const schedule::Slice &slice : report.ranks[r].slices)
          std::printf(
              "rank %d %.1f %.1f %s\n", r, slice.start * 1e6, slice.end * 1e6,
              schedule::describe(program.ranks[r].actions[slice.actionIndex])
                  .c_str());
  }
  return 0;
}
