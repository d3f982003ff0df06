//===- ActionList.cpp - Text format of schedule programs ------------------===//

#include "pipewave/Schedule/ActionList.h"

#include "pipewave/Schedule/Verify.h"

#include "ComputeOrder.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace pipewave::schedule {

namespace {

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
         c == '.';
}

bool isName(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), isNameChar);
}

/// A non-negative decimal number of at most 9 digits.
std::optional<int> parseNumber(std::string_view text) {
  if (text.empty() || text.size() > 9)
    return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

/// A whitespace-separated word and where it starts.
struct Token {
  std::string_view text;
  int line = 0;
  int column = 0;
};

std::string at(const Token &token) {
  return "line " + std::to_string(token.line) + ", column " +
         std::to_string(token.column);
}

/// Splits one line (without its comment) into tokens.
std::vector<Token> tokenize(std::string_view line, int lineNumber) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    size_t begin = i;
    while (i < line.size() &&
           !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (i > begin)
      tokens.push_back({line.substr(begin, i - begin), lineNumber,
                        static_cast<int>(begin) + 1});
  }
  return tokens;
}

/// "<rank>:" -> rank.
std::optional<int> parseRankLabel(std::string_view text) {
  if (text.size() < 2 || text.back() != ':')
    return std::nullopt;
  return parseNumber(text.substr(0, text.size() - 1));
}

/// An action token: <stage><kind><mb>, AR<stage> or OPT<stage>.
std::optional<detail::Step> parseStep(std::string_view text) {
  auto prefixed = [&](std::string_view prefix,
                      ActionKind kind) -> std::optional<detail::Step> {
    if (text.substr(0, prefix.size()) != prefix)
      return std::nullopt;
    std::optional<int> stage = parseNumber(text.substr(prefix.size()));
    if (!stage)
      return std::nullopt;
    return detail::Step{kind, *stage, -1};
  };
  if (auto step = prefixed("AR", ActionKind::AllReduce))
    return step;
  if (auto step = prefixed("OPT", ActionKind::OptimizerStep))
    return step;
  size_t kindAt = text.find_first_of("FBIW");
  if (kindAt == std::string_view::npos)
    return std::nullopt;
  std::optional<int> stage = parseNumber(text.substr(0, kindAt));
  std::optional<int> microbatch = parseNumber(text.substr(kindAt + 1));
  if (!stage || !microbatch)
    return std::nullopt;
  ActionKind kind = ActionKind::Forward;
  switch (text[kindAt]) {
  case 'B':
    kind = ActionKind::Backward;
    break;
  case 'I':
    kind = ActionKind::BackwardInput;
    break;
  case 'W':
    kind = ActionKind::BackwardWeight;
    break;
  default:
    break;
  }
  return detail::Step{kind, *stage, *microbatch};
}

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  BuildResult parse() {
    if (auto error = readLines())
      return BuildResult::failure(*error);
    if (auto error = checkClaimedSize())
      return BuildResult::failure(*error);
    if (auto error = placeStages())
      return BuildResult::failure(*error);
    insertCollectives();

    Program skeleton =
        detail::makeSkeleton(numStages, numMicrobatches, numRanks, name,
                             [&](int r) { return placement[r]; });
    skeleton.forwardOnly = forwardOnly;
    BuildResult result =
        detail::lowerComputeOrder(skeleton, order, [&](int rank, int index) {
          const Token &token = where[rank][index];
          std::string quoted =
              "'" + detail::stepToken(order[rank][index]) + "'";
          if (token.line == 0)
            return quoted + " (added at the end of rank " +
                   std::to_string(rank) + ")";
          return quoted + " at " + at(token);
        });
    if (!result)
      return result;
    std::vector<Diagnostic> diagnostics = verify(*result.program);
    if (!diagnostics.empty())
      return BuildResult::failure("the program fails verification: " +
                                  diagnostics.front().message);
    return result;
  }

private:
  std::optional<std::string> readLines() {
    int lineNumber = 0;
    bool sawHeader = false;
    size_t begin = 0;
    while (begin <= text.size()) {
      size_t end = text.find('\n', begin);
      if (end == std::string_view::npos)
        end = text.size();
      std::string_view line = text.substr(begin, end - begin);
      if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
      ++lineNumber;
      begin = end + 1;

      if (!sawHeader) {
        std::vector<Token> tokens = tokenize(line, lineNumber);
        if (tokens.empty())
          continue;
        sawHeader = true;
        if (auto error = readHeader(tokens))
          return error;
        continue;
      }
      size_t comment = line.find('#');
      if (comment != std::string_view::npos)
        line = line.substr(0, comment);
      std::vector<Token> tokens = tokenize(line, lineNumber);
      if (tokens.empty())
        continue;
      words += tokens.size();
      if (auto error = readLine(tokens))
        return error;
    }
    if (!sawHeader)
      return std::string("the text is empty: expected a header line "
                         "'# pipewave schedule S=<stages> M=<microbatches>'");
    return std::nullopt;
  }

  /// Every (stage, microbatch) needs a forward action written in the file,
  /// one word each: a header that claims more than the file can hold is
  /// refused before anything of the claimed size is built.
  std::optional<std::string> checkClaimedSize() const {
    uint64_t needed = static_cast<uint64_t>(numStages) *
                      static_cast<uint64_t>(numMicrobatches);
    if (needed <= words)
      return std::nullopt;
    return "the header claims S=" + std::to_string(numStages) +
           " M=" + std::to_string(numMicrobatches) + ", which needs " +
           std::to_string(needed) + " forward actions, but the file has " +
           std::to_string(words) + " words after it";
  }

  std::optional<std::string> readHeader(const std::vector<Token> &tokens) {
    if (tokens.size() < 3 || tokens[0].text != "#" ||
        tokens[1].text != "pipewave" || tokens[2].text != "schedule")
      return at(tokens[0]) +
             ": expected the header '# pipewave schedule S=<stages> "
             "M=<microbatches>' but got '" +
             std::string(tokens[0].text) + "'";
    bool haveStages = false, haveMicrobatches = false;
    for (size_t i = 3; i < tokens.size(); ++i) {
      const Token &token = tokens[i];
      std::string_view word = token.text;
      if (word == "forward-only") {
        forwardOnly = true;
        continue;
      }
      size_t equals = word.find('=');
      std::string_view key = word.substr(0, equals);
      std::string_view value =
          equals == std::string_view::npos ? "" : word.substr(equals + 1);
      if (equals != std::string_view::npos && key == "name") {
        if (!isName(value))
          return at(token) +
                 ": the schedule name must be a word of "
                 "letters, digits, '_', '-' and '.' in '" +
                 std::string(word) + "'";
        name = std::string(value);
        continue;
      }
      if (equals != std::string_view::npos && (key == "S" || key == "M")) {
        std::optional<int> number = parseNumber(value);
        if (!number || *number < 1)
          return at(token) + ": expected a positive number in '" +
                 std::string(word) + "'";
        (key == "S" ? numStages : numMicrobatches) = *number;
        (key == "S" ? haveStages : haveMicrobatches) = true;
        continue;
      }
      return at(token) + ": unknown header field '" + std::string(word) +
             "' (expected S=<n>, M=<n>, name=<word> or forward-only)";
    }
    if (!haveStages || !haveMicrobatches)
      return at(tokens[0]) + ": the header must give S=<stages> and "
                             "M=<microbatches>";
    return std::nullopt;
  }

  std::optional<std::string> readLine(const std::vector<Token> &tokens) {
    if (tokens[0].text == "stages") {
      if (tokens.size() < 2)
        return at(tokens[0]) + ": expected 'stages <rank>: <stage>...'";
      std::optional<int> rank = parseRankLabel(tokens[1].text);
      if (!rank)
        return at(tokens[1]) + ": expected a rank label '<rank>:' but got '" +
               std::string(tokens[1].text) + "'";
      if (stageLines.count(*rank))
        return at(tokens[1]) + ": the stages of rank " + std::to_string(*rank) +
               " are already given at " + at(stageLines[*rank].front());
      std::vector<Token> &stages = stageLines[*rank];
      stages.push_back(tokens[1]);
      for (size_t i = 2; i < tokens.size(); ++i)
        stages.push_back(tokens[i]);
      return std::nullopt;
    }
    std::optional<int> rank = parseRankLabel(tokens[0].text);
    if (!rank)
      return at(tokens[0]) +
             ": expected 'stages <rank>:' or '<rank>:' but got '" +
             std::string(tokens[0].text) + "'";
    std::vector<Token> &actions = actionLines[*rank];
    if (actions.empty())
      actions.push_back(tokens[0]);
    for (size_t i = 1; i < tokens.size(); ++i)
      actions.push_back(tokens[i]);
    return std::nullopt;
  }

  /// Sets the placement and the ranks' steps from the collected lines.
  std::optional<std::string> placeStages() {
    if (stageLines.empty()) {
      numRanks = numStages;
      for (int r = 0; r < numRanks; ++r)
        placement.push_back({r});
    } else {
      numRanks = static_cast<int>(stageLines.size());
      for (auto &[rank, tokens] : stageLines) {
        if (rank >= numRanks)
          return at(tokens.front()) + ": rank " + std::to_string(rank) +
                 " is out of range: the 'stages' lines name " +
                 std::to_string(numRanks) +
                 " ranks, which must be numbered from 0";
        std::vector<int> stages;
        for (size_t i = 1; i < tokens.size(); ++i) {
          std::optional<int> stage = parseNumber(tokens[i].text);
          if (!stage || *stage >= numStages)
            return at(tokens[i]) + ": expected a stage in [0, " +
                   std::to_string(numStages) + ") but got '" +
                   std::string(tokens[i].text) + "'";
          if (std::find(stages.begin(), stages.end(), *stage) != stages.end())
            return at(tokens[i]) + ": stage " + std::to_string(*stage) +
                   " is listed twice for rank " + std::to_string(rank);
          stages.push_back(*stage);
        }
        if (stages.empty())
          return at(tokens.front()) + ": rank " + std::to_string(rank) +
                 " holds no stage";
        std::sort(stages.begin(), stages.end());
        placement.push_back(stages);
      }
    }
    std::vector<bool> held(numStages, false);
    for (const std::vector<int> &stages : placement)
      for (int stage : stages)
        held[stage] = true;
    for (int stage = 0; stage < numStages; ++stage)
      if (!held[stage])
        return "stage " + std::to_string(stage) + " is held by no rank";

    order.assign(numRanks, {});
    where.assign(numRanks, {});
    for (auto &[rank, tokens] : actionLines) {
      if (rank >= numRanks)
        return at(tokens.front()) + ": rank " + std::to_string(rank) +
               " is out of range [0, " + std::to_string(numRanks) + ")";
      for (size_t i = 1; i < tokens.size(); ++i) {
        std::optional<detail::Step> step = parseStep(tokens[i].text);
        if (!step)
          return at(tokens[i]) + ": unknown action '" +
                 std::string(tokens[i].text) +
                 "' (expected <stage>F<mb>, <stage>B<mb>, <stage>I<mb>, "
                 "<stage>W<mb>, AR<stage> or OPT<stage>)";
        if (step->stage >= numStages)
          return at(tokens[i]) + ": stage " + std::to_string(step->stage) +
                 " is out of range [0, " + std::to_string(numStages) +
                 ") in '" + std::string(tokens[i].text) + "'";
        if (!std::binary_search(placement[rank].begin(), placement[rank].end(),
                                step->stage))
          return at(tokens[i]) + ": rank " + std::to_string(rank) +
                 " does not hold stage " + std::to_string(step->stage) +
                 " in '" + std::string(tokens[i].text) + "'";
        if (step->microbatch >= numMicrobatches)
          return at(tokens[i]) + ": microbatch " +
                 std::to_string(step->microbatch) + " is out of range [0, " +
                 std::to_string(numMicrobatches) + ") in '" +
                 std::string(tokens[i].text) + "'";
        if (forwardOnly && step->kind != ActionKind::Forward)
          return at(tokens[i]) +
                 ": a forward-only schedule has only F "
                 "actions, not '" +
                 std::string(tokens[i].text) + "'";
        order[rank].push_back(*step);
        where[rank].push_back(tokens[i]);
      }
    }
    return std::nullopt;
  }

  /// Adds the allreduces of replicated stages and the optimizer steps that
  /// the text leaves out.
  void insertCollectives() {
    if (forwardOnly)
      return;
    std::vector<int> replicas(numStages, 0);
    for (const std::vector<int> &stages : placement)
      for (int stage : stages)
        ++replicas[stage];
    for (int r = 0; r < numRanks; ++r) {
      for (int stage : placement[r]) {
        auto has = [&](ActionKind kind) {
          for (const detail::Step &step : order[r])
            if (step.kind == kind && step.stage == stage)
              return true;
          return false;
        };
        if (replicas[stage] > 1 && !has(ActionKind::AllReduce)) {
          size_t position = order[r].size();
          for (size_t i = 0; i < order[r].size(); ++i)
            if (order[r][i].kind == ActionKind::OptimizerStep &&
                order[r][i].stage == stage)
              position = i;
          order[r].insert(order[r].begin() + position,
                          {ActionKind::AllReduce, stage, -1});
          where[r].insert(where[r].begin() + position, Token{});
        }
      }
      for (int stage : placement[r]) {
        bool has = false;
        for (const detail::Step &step : order[r])
          has |= step.kind == ActionKind::OptimizerStep && step.stage == stage;
        if (!has) {
          order[r].push_back({ActionKind::OptimizerStep, stage, -1});
          where[r].push_back(Token{});
        }
      }
    }
  }

  std::string_view text;
  int numStages = 0;
  int numMicrobatches = 0;
  int numRanks = 0;
  /// Words (tokens) after the header.
  uint64_t words = 0;
  bool forwardOnly = false;
  std::string name = "file";
  /// rank -> its label token followed by its stage tokens.
  std::map<int, std::vector<Token>> stageLines;
  /// rank -> its first label token followed by all its action tokens.
  std::map<int, std::vector<Token>> actionLines;
  std::vector<std::vector<int>> placement;
  detail::ComputeOrder order;
  /// [rank][step] -> the token of the step (line 0 for inserted steps).
  std::vector<std::vector<Token>> where;
};

} // namespace

std::string formatActionList(const Program &program) {
  std::string text =
      "# pipewave schedule S=" + std::to_string(program.numStages) +
      " M=" + std::to_string(program.numMicrobatches);
  if (isName(program.schedule))
    text += " name=" + program.schedule;
  if (program.forwardOnly)
    text += " forward-only";
  text += "\n";
  for (const RankProgram &rank : program.ranks) {
    text += "stages " + std::to_string(rank.rank) + ":";
    for (int stage : rank.stages)
      text += " " + std::to_string(stage);
    text += "\n";
  }
  for (const RankProgram &rank : program.ranks) {
    text += std::to_string(rank.rank) + ":";
    for (const Action &action : rank.actions) {
      // pipe-schedule adds the tied all-reduces to the list it reads.
      if (action.kind == ActionKind::Send || action.kind == ActionKind::Recv ||
          action.kind == ActionKind::TiedAllReduce)
        continue;
      text += " " +
              detail::stepToken({action.kind, action.stage, action.microbatch});
    }
    text += "\n";
  }
  return text;
}

BuildResult parseActionList(std::string_view text) {
  return Parser(text).parse();
}

} // namespace pipewave::schedule
