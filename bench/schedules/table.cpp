//===- table.cpp - Bubble and stash table of the built-in schedules -------===//
//
// Prints, as Markdown, the bubble fraction that simulate() measures for every
// built-in schedule next to its closed form, and the peak number of
// activations stashed on each rank. docs/schedules.md holds the output.
//
//   pipewave-schedule-table            print the table
//   pipewave-schedule-table --check F  exit 1 unless file F contains it
//
// Costs: a full stage's forward takes 1 and its backward 2 (I and W 1 each
// when split); a chunk of a schedule with v chunks per rank takes 1/v of
// that, so every schedule does the same 3M units of work per rank.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Simulate.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>

using namespace pipewave::schedule;

namespace {

struct Row {
  std::string schedule;
  std::string parameter;
  int ranks;
  int microbatches;
  /// Chunks per rank (scales the costs).
  int chunks;
  bool split;
  std::function<BuildResult()> build;
  /// Closed form of the bubble fraction, or a negative value if none.
  double closedForm;
  /// Text before the closed-form value, e.g. "≥ " for a lower bound.
  std::string closedPrefix = "";
};

std::string fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

std::string render(const Row &row) {
  BuildResult built = row.build();
  if (!built)
    return "| " + row.schedule + " | error: " + built.error + " |\n";
  const Program &program = *built.program;
  Costs costs;
  double scale = 1.0 / row.chunks;
  costs.forward = scale;
  costs.backward = 2 * scale;
  costs.backwardInput = scale;
  costs.backwardWeight = scale;
  SimResult result = simulate(program, costs);
  if (!result.error.empty())
    return "| " + row.schedule + " | error: " + result.error + " |\n";
  std::string stash;
  for (const RankTiming &rank : result.ranks)
    stash += (stash.empty() ? "" : " ") + std::to_string(rank.peakStash);
  std::string closed =
      row.closedForm < 0 ? "—" : row.closedPrefix + fixed(row.closedForm);
  return "| " + row.schedule + " | " + row.parameter + " | " +
         std::to_string(row.ranks) + " | " + std::to_string(program.numStages) +
         " | " + std::to_string(row.microbatches) + " | " +
         fixed(result.bubbleFraction) + " | " + closed + " | " + stash + " |\n";
}

std::string table() {
  std::vector<Row> rows;
  for (int P : {4, 8}) {
    for (int M : {8, 16, 32}) {
      double p = P, m = M;
      rows.push_back({"gpipe", "", P, M, 1, false,
                      [=] { return buildGPipe(P, M); }, (p - 1) / (m + p - 1)});
      rows.push_back({"1f1b", "", P, M, 1, false,
                      [=] { return build1F1B(P, M); }, (p - 1) / (m + p - 1)});
      rows.push_back({"interleaved-1f1b", "v=2", P, M, 2, false,
                      [=] { return buildInterleaved1F1B(P, 2, M); },
                      (p - 1) / (2 * m + p - 1)});
      for (int W : {1, 2, 4})
        rows.push_back({"hanayo", "W=" + std::to_string(W), P, M, 2 * W, false,
                        [=] { return buildHanayo(P, W, M); },
                        2 * (p - 1) / (3 * W * m + 2 * (p - 1))});
      rows.push_back({"zbh1", "", P, M, 1, true,
                      [=] { return buildZeroBubbleH1(P, M); },
                      (p - 1) / (3 * m + p - 1)});
      rows.push_back({"zbv", "", P, M, 2, true,
                      [=] { return buildZeroBubbleV(P, M); },
                      (p - 1) / (6 * m + p - 1), "≥ "});
    }
  }
  std::string text = "| schedule | | ranks | stages | M | bubble "
                     "(simulate) | closed form | peak stash per rank |\n"
                     "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const Row &row : rows)
    text += render(row);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  std::string text = table();
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::ifstream file(argv[2]);
    if (!file) {
      std::fprintf(stderr, "pipewave-schedule-table: cannot read %s\n",
                   argv[2]);
      return 1;
    }
    std::string contents((std::istreambuf_iterator<char>(file)),
                         std::istreambuf_iterator<char>());
    if (contents.find(text) == std::string::npos) {
      std::fprintf(stderr,
                   "pipewave-schedule-table: %s does not contain the current "
                   "table; regenerate it with pipewave-schedule-table\n",
                   argv[2]);
      return 1;
    }
    return 0;
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--check FILE]\n", argv[0]);
    return 2;
  }
  std::fputs(text.c_str(), stdout);
  return 0;
}
