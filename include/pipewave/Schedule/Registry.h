//===- Registry.h - The schedule families, in one table ---------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Every generated schedule family (gpipe, 1f1b, interleaved, hanayo, zb-h1,
// zb-v, ...) is one ScheduleFamily in one registry: its name and aliases,
// whether its backward is split into I and W, its shape option (chunks,
// waves) with defaults and the values schedule=auto tries, its placement
// (ranks for a stage count), its generator, and its closed-form bubble. The
// pipe-schedule pass, schedule=auto's search, pipewave-compile's option
// checks, the docs table (pipewave-schedule-table) and the benchmarks read
// this table and nothing else.
//
// Adding a family is one new file that defines `ScheduleFamily xFamily()`
// and one line `PIPEWAVE_SCHEDULE_FAMILY(xFamily)` in
// lib/Schedule/Families.def. Tests (and tools) may add families at run time
// with ScheduleRegistry::add before any pass or tool reads the registry.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_REGISTRY_H
#define PIPEWAVE_SCHEDULE_REGISTRY_H

#include "pipewave/Schedule/Generate.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipewave::schedule {

/// The arguments of a family's generator.
struct FamilyBuildArgs {
  int numStages = 0;
  /// What ScheduleFamily::ranks returned for numStages.
  int numRanks = 0;
  /// The family's shape option (chunks, waves), its default applied; 0 for
  /// a family without one.
  int option = 0;
  int numMicrobatches = 0;
  /// A forward-only (inference) program is asked for. A generator that
  /// cannot build one returns its training program; buildFamily() then keeps
  /// its placement and forward order (forwardOnlyVariant).
  bool forwardOnly = false;
};

/// One schedule family.
struct ScheduleFamily {
  /// The name pipe-schedule and pipewave-compile take, e.g. "zb-v".
  std::string name;
  /// Other accepted spellings, e.g. "zbv".
  std::vector<std::string> aliases;
  /// One line for help texts and the docs.
  std::string summary;
  /// The backward is split into input (I) and weight (W) gradients: the
  /// stages need pipe-autodiff{split=true}, and the family has no
  /// forward-only form (schedule=auto skips it for inference).
  bool splitBackward = false;
  /// The shape option, as pipe-schedule spells it ("chunks", "waves"), or
  /// empty for a family without one.
  std::string optionName;
  /// The option's value when the user gives none.
  int defaultOption = 0;
  /// The option values schedule=auto tries (none: the default only).
  std::vector<int> searchOptions;
  /// The option values the docs table and timelines show.
  std::vector<int> tableOptions;
  /// Ranks for `numStages` stages with `option`, or nullopt with `error` set
  /// when the stage count does not fit the placement. Null: one stage per
  /// rank.
  std::function<std::optional<int>(int numStages, int option,
                                   std::string &error)>
      ranks;
  /// Stages each rank holds for `option` (the docs table builds a family
  /// for a rank count). Null: 1.
  std::function<int(int option)> stagesPerRank;
  /// The generator.
  std::function<BuildResult(const FamilyBuildArgs &args)> build;
  /// Closed-form bubble fraction for `ranks` ranks and `microbatches`
  /// microbatches with unit costs (F 1, B 2, I = W = 1 per full stage), or
  /// null when there is none.
  std::function<double(int ranks, int option, int microbatches)> bubble;
  /// Text before the closed form in the docs table, e.g. "≥ " for a bound.
  std::string bubblePrefix;

  /// "interleaved chunks=2", "hanayo waves=1", "1f1b".
  std::string describe(int option) const;
  /// Stages per rank (see `stagesPerRank`).
  int stagesOnEachRank(int option) const {
    return stagesPerRank ? stagesPerRank(option) : 1;
  }
  /// Ranks of the family's placement (see `ranks`).
  std::optional<int> ranksFor(int numStages, int option,
                              std::string &error) const;
};

/// The registered schedule families, in registration order: the built-ins
/// of lib/Schedule/Families.def first.
class ScheduleRegistry {
public:
  /// The process-wide registry, with the built-in families.
  static ScheduleRegistry &instance();

  /// Adds `family`; returns false (and adds nothing) when its name or an
  /// alias is already taken, or it has no name or generator.
  bool add(ScheduleFamily family);
  /// Removes the family named `name` (tests); false if there is none.
  bool remove(std::string_view name);

  /// The family named or aliased `name`, or null.
  const ScheduleFamily *lookup(std::string_view name) const;
  /// Every family, in registration order.
  std::vector<const ScheduleFamily *> families() const;
  /// "gpipe, 1f1b, interleaved, hanayo, zb-h1, zb-v".
  std::string names() const;
  /// The families whose shape option is `optionName`, as "a or b".
  std::string familiesWithOption(std::string_view optionName) const;

private:
  ScheduleRegistry();
  std::vector<std::unique_ptr<ScheduleFamily>> entries;
};

/// Builds `family` for `numStages` stages and `microbatches` microbatches
/// (`option` 0: the family's default). A forward-only request keeps the
/// family's placement and the order of its forwards. Errors repeat the
/// option values and the stage/rank counts. The program is named after the
/// family.
BuildResult buildFamily(const ScheduleFamily &family, int option, int numStages,
                        int microbatches, bool forwardOnly);

/// The Markdown table of docs/schedules.md: for every registered family and
/// each of its table options, at 4 and 8 ranks and 8, 16 and 32
/// microbatches, the bubble fraction computeTimeline() measures with unit
/// costs, the closed form and the peak stash per rank.
std::string familyTable();

/// The forward-only program with the placement and forward order of a
/// training `program` (its messages rebuilt by the action-list lowering).
BuildResult forwardOnlyVariant(const Program &program);

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_REGISTRY_H
