//===- Links.cpp - Cross-rank links between actions -----------------------===//

#include "Links.h"

#include <cstdint>
#include <unordered_map>
#include <utility>

namespace pipewave::schedule::detail {

namespace {
/// (peer, tag) of a Send or Recv.
using MessageKey = std::pair<int, int64_t>;

struct MessageKeyHash {
  size_t operator()(const MessageKey &key) const {
    return std::hash<int64_t>()(key.second * 1000003 + key.first);
  }
};

/// Per rank: (peer, tag) -> indices of the Sends (or Recvs) carrying them.
using MessageMap =
    std::unordered_map<MessageKey, std::vector<int>, MessageKeyHash>;
} // namespace

int Links::allReduceOn(int rank, int stage, int nth) const {
  if (rank < 0 || rank >= static_cast<int>(allReduces.size()) || stage < 0 ||
      stage >= static_cast<int>(allReduces[rank].size()))
    return -1;
  const std::vector<int> &list = allReduces[rank][stage];
  return nth >= 0 && nth < static_cast<int>(list.size()) ? list[nth] : -1;
}

int Links::tiedOn(int rank, const std::string &param) const {
  if (rank < 0 || rank >= static_cast<int>(tied.size()))
    return -1;
  auto it = tied[rank].find(param);
  return it == tied[rank].end() ? -1 : it->second;
}

Links linkProgram(const Program &program) {
  size_t numRanks = program.ranks.size();
  int numStages = program.numStages > 0 ? program.numStages : 0;
  Links links;
  links.matchCount.resize(numRanks);
  links.partner.resize(numRanks);
  links.ordinal.resize(numRanks);
  links.allReduces.assign(numRanks, std::vector<std::vector<int>>(numStages));
  links.tied.resize(numRanks);

  std::vector<MessageMap> sends(numRanks), recvs(numRanks);
  for (size_t r = 0; r < numRanks; ++r) {
    const std::vector<Action> &actions = program.ranks[r].actions;
    links.matchCount[r].assign(actions.size(), 0);
    links.partner[r].assign(actions.size(), -1);
    links.ordinal[r].assign(actions.size(), -1);
    for (size_t i = 0; i < actions.size(); ++i) {
      const Action &action = actions[i];
      int index = static_cast<int>(i);
      if (action.kind == ActionKind::Send)
        sends[r][{action.peer, action.tag}].push_back(index);
      else if (action.kind == ActionKind::Recv)
        recvs[r][{action.peer, action.tag}].push_back(index);
      else if (action.kind == ActionKind::AllReduce && action.stage >= 0 &&
               action.stage < numStages) {
        std::vector<int> &list = links.allReduces[r][action.stage];
        links.ordinal[r][i] = static_cast<int>(list.size());
        list.push_back(index);
      } else if (action.kind == ActionKind::TiedAllReduce) {
        links.tied[r].insert({action.param, index});
      }
    }
  }

  for (size_t r = 0; r < numRanks; ++r) {
    const std::vector<Action> &actions = program.ranks[r].actions;
    for (size_t i = 0; i < actions.size(); ++i) {
      const Action &action = actions[i];
      if (action.kind != ActionKind::Send && action.kind != ActionKind::Recv)
        continue;
      if (action.peer < 0 || action.peer >= static_cast<int>(numRanks))
        continue;
      const MessageMap &other = action.kind == ActionKind::Send
                                    ? recvs[action.peer]
                                    : sends[action.peer];
      auto it = other.find({static_cast<int>(r), action.tag});
      if (it == other.end())
        continue;
      links.matchCount[r][i] = static_cast<int>(it->second.size());
      if (it->second.size() == 1)
        links.partner[r][i] = it->second.front();
    }
  }
  return links;
}

} // namespace pipewave::schedule::detail
