//===- Verify.cpp - Pipeline schedule program verifier --------------------===//

#include "pipewave/Schedule/Verify.h"

#include "VerifyChecks.h"

namespace pipewave::schedule {

namespace detail {

std::string quote(const Program &program, int rank, int index) {
  return "'" + describe(program.ranks[rank].actions[index]) + "' (action " +
         std::to_string(index) + ")";
}

void report(Diagnostics &diagnostics, int rank, int index,
            const std::string &text) {
  diagnostics.push_back(
      {rank, index, "rank " + std::to_string(rank) + ": " + text});
}

std::string formatList(const std::vector<int> &ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

} // namespace detail

std::vector<Diagnostic> verify(const Program &program) {
  detail::Diagnostics diagnostics;

  detail::checkStructure(program, diagnostics);
  if (!diagnostics.empty())
    return diagnostics;

  std::vector<detail::ActionTable> tables;
  tables.reserve(program.ranks.size());
  for (const RankProgram &rank : program.ranks)
    tables.emplace_back(program, rank);

  detail::checkCompleteness(program, tables, diagnostics);
  if (!diagnostics.empty())
    return diagnostics;

  detail::checkOrder(program, tables, diagnostics);
  if (!diagnostics.empty())
    return diagnostics;

  detail::Links links = detail::linkProgram(program);
  detail::checkMatching(program, links, diagnostics);
  if (!diagnostics.empty())
    return diagnostics;

  detail::checkDeadlock(program, links, diagnostics);
  return diagnostics;
}

} // namespace pipewave::schedule
