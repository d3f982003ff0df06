//===- table.cpp - Bubble and stash table of the built-in schedules -------===//
//
// Prints, as Markdown, the bubble fraction that computeTimeline() measures for
// every registered schedule family (pipewave/Schedule/Registry.h) next to its
// closed form, and the peak number of
// activations stashed on each rank. docs/schedules.md holds the output.
//
//   pipewave-schedule-table              print the table
//   pipewave-schedule-table --svg-dir D  write the timelines to D/*.svg
//   pipewave-schedule-table --check F    exit 1 unless file F contains the
//                                        table and F's directory holds the
//                                        current timelines/*.svg
//
// Table costs: a full stage's forward takes 1 and its backward 2 (I and W 1
// each when split); a chunk of a schedule with v chunks per rank takes 1/v of
// that, so every schedule does the same 3M units of work per rank.
//
// Timelines: every schedule at 4 ranks and 8 microbatches, simulated by
// lib/Simulator with unit costs per action (F 1, B 2, I 1, W 1, free
// communication) and drawn by sim::svgTimeline.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"
#include "pipewave/Schedule/Timeline.h"
#include "pipewave/Simulator/Simulator.h"
#include "pipewave/Simulator/Trace.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace pipewave::schedule;

namespace {

/// The option values a family shows in the table and the timelines.
std::vector<int> shownOptions(const ScheduleFamily &family) {
  if (family.optionName.empty())
    return {0};
  if (family.tableOptions.empty())
    return {family.defaultOption};
  return family.tableOptions;
}

/// One timeline of docs/timelines: `name`.svg.
struct Timeline {
  std::string name;
  std::string title;
  std::function<BuildResult()> build;
};

/// The timelines, at 4 ranks and M = 8 microbatches: every registered
/// family with each option value of the table.
std::vector<Timeline> timelines() {
  const int P = 4, M = 8;
  std::vector<Timeline> result;
  for (const ScheduleFamily *family : ScheduleRegistry::instance().families())
    for (int option : shownOptions(*family)) {
      int stages = P * family->stagesOnEachRank(option);
      std::string suffix =
          family->optionName.empty()
              ? ""
              : "-" + family->optionName + std::to_string(option);
      std::string title = family->optionName.empty()
                              ? family->name
                              : family->name + ", " + family->optionName + "=" +
                                    std::to_string(option);
      result.push_back({family->name + suffix, title, [=] {
                          return buildFamily(*family, option, stages, M,
                                             /*forwardOnly=*/false);
                        }});
    }
  return result;
}

/// The SVG of `timeline`, or an empty string after printing an error.
std::string svg(const Timeline &timeline) {
  BuildResult built = timeline.build();
  if (!built) {
    std::fprintf(stderr, "pipewave-schedule-table: %s: %s\n",
                 timeline.name.c_str(), built.error.c_str());
    return "";
  }
  const Program &program = *built.program;
  int numRanks = static_cast<int>(program.ranks.size());
  // F 1, B 2, I 1, W 1 per full stage, no communication; a chunk of a
  // schedule with v chunks per rank takes 1/v of that, as in the table, so
  // the pictures share one time scale.
  UniformCosts costs;
  double scale = static_cast<double>(numRanks) / program.numStages;
  costs.forward *= scale;
  costs.backward *= scale;
  costs.backwardInput *= scale;
  costs.backwardWeight *= scale;
  pipewave::sim::SimReport report = pipewave::sim::simulate(
      program, pipewave::sim::CostTable::uniform(program.numStages, costs),
      pipewave::sim::Cluster::ideal(numRanks));
  if (!report.error.empty()) {
    std::fprintf(stderr, "pipewave-schedule-table: %s: %s\n",
                 timeline.name.c_str(), report.error.c_str());
    return "";
  }
  pipewave::sim::SvgOptions options;
  options.title = timeline.title + ": " + std::to_string(numRanks) +
                  " ranks, " + std::to_string(program.numStages) + " stages, " +
                  std::to_string(program.numMicrobatches) + " microbatches";
  options.seconds = false;
  // About 20 pixels per time unit, so that "F3" fits in a unit-long box,
  // up to a width a page can still show (narrower boxes go unlabelled).
  options.width = std::clamp(160 + 20 * report.stepTime, 1200.0, 1600.0);
  return pipewave::sim::svgTimeline(program, report, options);
}

std::optional<std::string> readFile(const std::filesystem::path &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

/// Writes every timeline to `dir`/<name>.svg.
int writeTimelines(const std::filesystem::path &dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  for (const Timeline &timeline : timelines()) {
    std::string text = svg(timeline);
    if (text.empty())
      return 1;
    std::filesystem::path path = dir / (timeline.name + ".svg");
    std::ofstream file(path, std::ios::binary);
    file << text;
    if (!file.flush()) {
      std::fprintf(stderr, "pipewave-schedule-table: cannot write %s\n",
                   path.string().c_str());
      return 1;
    }
  }
  return 0;
}

/// 0 if `dir` holds the current timelines, else 1 after naming the stale ones.
int checkTimelines(const std::filesystem::path &dir) {
  int status = 0;
  for (const Timeline &timeline : timelines()) {
    std::string text = svg(timeline);
    if (text.empty())
      return 1;
    std::filesystem::path path = dir / (timeline.name + ".svg");
    std::optional<std::string> contents = readFile(path);
    if (contents == text)
      continue;
    std::fprintf(stderr,
                 "pipewave-schedule-table: %s %s; regenerate the timelines "
                 "with pipewave-schedule-table --svg-dir %s\n",
                 path.string().c_str(),
                 contents ? "differs from the current timeline" : "is missing",
                 dir.string().c_str());
    status = 1;
  }
  return status;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--svg-dir")
    return writeTimelines(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::string text = familyTable();
    std::optional<std::string> contents = readFile(argv[2]);
    if (!contents) {
      std::fprintf(stderr, "pipewave-schedule-table: cannot read %s\n",
                   argv[2]);
      return 1;
    }
    int status = 0;
    if (contents->find(text) == std::string::npos) {
      std::fprintf(stderr,
                   "pipewave-schedule-table: %s does not contain the current "
                   "table; regenerate it with pipewave-schedule-table\n",
                   argv[2]);
      status = 1;
    }
    // The timelines the file embeds live next to it, in timelines/.
    std::filesystem::path dir =
        std::filesystem::path(argv[2]).parent_path() / "timelines";
    if (checkTimelines(dir) != 0)
      status = 1;
    return status;
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--check FILE | --svg-dir DIR]\n", argv[0]);
    return 2;
  }
  std::fputs(familyTable().c_str(), stdout);
  return 0;
}
