//===- FamilyTable.cpp - The bubble and stash table of the families -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The Markdown table of docs/schedules.md: every registered family, for each
// option value it shows, at 4 and 8 ranks and 8, 16 and 32 microbatches:
// the bubble fraction computeTimeline() measures with unit costs next to the
// family's closed form, and the peak stash of every rank. A full stage's
// forward takes 1 and its backward 2 (I and W 1 each when split); a chunk of
// a family with v stages per rank takes 1/v of that, so every schedule does
// the same 3M units of work per rank.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Registry.h"
#include "pipewave/Schedule/Timeline.h"

#include <cstdio>

namespace pipewave::schedule {

namespace {

/// One row of the table: a registered family with one option value on
/// `ranks` ranks.
struct Row {
  const ScheduleFamily *family;
  int option;
  int ranks;
  int microbatches;

  BuildResult build() const {
    return buildFamily(*family, option,
                       ranks * family->stagesOnEachRank(option), microbatches,
                       /*forwardOnly=*/false);
  }
};

/// The option values a family shows in the table.
std::vector<int> shownOptions(const ScheduleFamily &family) {
  if (family.optionName.empty())
    return {0};
  if (family.tableOptions.empty())
    return {family.defaultOption};
  return family.tableOptions;
}

std::string fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

std::string render(const Row &row) {
  const ScheduleFamily &family = *row.family;
  BuildResult built = row.build();
  if (!built)
    return "| " + family.name + " | error: " + built.error + " |\n";
  const Program &program = *built.program;
  UniformCosts costs;
  double scale = static_cast<double>(row.ranks) / program.numStages;
  costs.forward = scale;
  costs.backward = 2 * scale;
  costs.backwardInput = scale;
  costs.backwardWeight = scale;
  StepTimeline result = computeTimeline(program, costs);
  if (!result.error.empty())
    return "| " + family.name + " | error: " + result.error + " |\n";
  std::string stash;
  for (const RankTiming &rank : result.ranks)
    stash += (stash.empty() ? "" : " ") + std::to_string(rank.peakStash);
  std::string closed =
      family.bubble
          ? family.bubblePrefix +
                fixed(family.bubble(row.ranks, row.option, row.microbatches))
          : "—";
  std::string parameter =
      family.optionName.empty()
          ? ""
          : family.optionName + "=" + std::to_string(row.option);
  return "| " + family.name + " | " + parameter + " | " +
         std::to_string(row.ranks) + " | " + std::to_string(program.numStages) +
         " | " + std::to_string(row.microbatches) + " | " +
         fixed(result.bubbleFraction) + " | " + closed + " | " + stash + " |\n";
}

} // namespace

std::string familyTable() {
  std::vector<Row> rows;
  for (int P : {4, 8})
    for (int M : {8, 16, 32})
      for (const ScheduleFamily *family :
           ScheduleRegistry::instance().families())
        for (int option : shownOptions(*family))
          rows.push_back({family, option, P, M});
  std::string text = "| schedule | | ranks | stages | M | bubble "
                     "(simulate) | closed form | peak stash per rank |\n"
                     "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const Row &row : rows)
    text += render(row);
  return text;
}

} // namespace pipewave::schedule
