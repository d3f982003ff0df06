//===- Registry.cpp - The schedule families, in one table -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Registry.h"
#include "pipewave/Schedule/ActionList.h"

#include <algorithm>

namespace pipewave::schedule {

#define PIPEWAVE_SCHEDULE_FAMILY(fn) ScheduleFamily fn();
#include "Families.def"

std::string ScheduleFamily::describe(int option) const {
  if (optionName.empty())
    return name;
  return name + " " + optionName + "=" + std::to_string(option);
}

std::optional<int> ScheduleFamily::ranksFor(int numStages, int option,
                                            std::string &error) const {
  if (!ranks)
    return numStages;
  return ranks(numStages, option, error);
}

ScheduleRegistry::ScheduleRegistry() {
#define PIPEWAVE_SCHEDULE_FAMILY(fn) add(fn());
#include "Families.def"
}

ScheduleRegistry &ScheduleRegistry::instance() {
  static ScheduleRegistry registry;
  return registry;
}

bool ScheduleRegistry::add(ScheduleFamily family) {
  if (family.name.empty() || !family.build || lookup(family.name))
    return false;
  for (const std::string &alias : family.aliases)
    if (lookup(alias))
      return false;
  entries.push_back(std::make_unique<ScheduleFamily>(std::move(family)));
  return true;
}

bool ScheduleRegistry::remove(std::string_view name) {
  auto it =
      std::find_if(entries.begin(), entries.end(),
                   [&](const auto &entry) { return entry->name == name; });
  if (it == entries.end())
    return false;
  entries.erase(it);
  return true;
}

const ScheduleFamily *ScheduleRegistry::lookup(std::string_view name) const {
  for (const auto &entry : entries) {
    if (entry->name == name)
      return entry.get();
    for (const std::string &alias : entry->aliases)
      if (alias == name)
        return entry.get();
  }
  return nullptr;
}

std::vector<const ScheduleFamily *> ScheduleRegistry::families() const {
  std::vector<const ScheduleFamily *> result;
  for (const auto &entry : entries)
    result.push_back(entry.get());
  return result;
}

std::string ScheduleRegistry::names() const {
  std::string text;
  for (const auto &entry : entries)
    text += (text.empty() ? "" : ", ") + entry->name;
  return text;
}

std::string
ScheduleRegistry::familiesWithOption(std::string_view optionName) const {
  std::vector<std::string> names;
  for (const auto &entry : entries)
    if (entry->optionName == optionName)
      names.push_back(entry->name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

BuildResult buildFamily(const ScheduleFamily &family, int option, int numStages,
                        int microbatches, bool forwardOnly) {
  if (!family.optionName.empty() && option == 0)
    option = family.defaultOption;
  std::string error;
  std::optional<int> ranks = family.ranksFor(numStages, option, error);
  if (!ranks)
    return BuildResult::failure(error);

  FamilyBuildArgs args;
  args.numStages = numStages;
  args.numRanks = *ranks;
  args.option = option;
  args.numMicrobatches = microbatches;
  args.forwardOnly = forwardOnly;
  BuildResult built = family.build(args);
  if (built && forwardOnly && !built.program->forwardOnly) {
    built.program->schedule = family.name;
    built = forwardOnlyVariant(*built.program);
  }
  if (!built)
    return BuildResult::failure(
        "schedule=" + family.describe(option) + " microbatches=" +
        std::to_string(microbatches) + " (" + std::to_string(numStages) +
        " stages on " + std::to_string(*ranks) + " ranks): " + built.error);
  built.program->schedule = family.name;
  return built;
}

BuildResult forwardOnlyVariant(const Program &program) {
  // The forwards of every rank, in order, as an action list: parsing it
  // adds the activation messages back.
  Program forwards = program;
  forwards.forwardOnly = true;
  for (RankProgram &rank : forwards.ranks)
    rank.actions.erase(std::remove_if(rank.actions.begin(), rank.actions.end(),
                                      [](const Action &action) {
                                        return action.kind !=
                                               ActionKind::Forward;
                                      }),
                       rank.actions.end());
  return parseActionList(formatActionList(forwards));
}

} // namespace pipewave::schedule
