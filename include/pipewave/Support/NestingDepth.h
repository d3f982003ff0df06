//===- NestingDepth.h - Refuse MLIR text that nests too deeply --*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++17. MLIR's parser recurses once per level of nested brackets
// (a type inside a type inside a function type ...), so a file with tens of
// thousands of nested parentheses runs it out of stack: a crash, not an
// error. No model exports nest anywhere near kMaxMlirNesting, so the tools
// that read MLIR text (the StableHLO importer, pipewave-compile) look for
// such nesting before they parse and refuse it with its position.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SUPPORT_NESTINGDEPTH_H
#define PIPEWAVE_SUPPORT_NESTINGDEPTH_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pipewave {

/// The deepest bracket nesting the tools parse.
inline constexpr size_t kMaxMlirNesting = 1000;

/// A 1-based line and column of a text.
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};

/// Where the brackets of MLIR text `text` -- ( [ { and < ("->" is not one)
/// -- first nest deeper than `limit`, outside string literals and `//`
/// comments; nullopt if they never do.
inline std::optional<TextPosition> findDeepNesting(std::string_view text,
                                                   size_t limit) {
  TextPosition at;
  size_t depth = 0;
  bool inString = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++at.line;
      at.column = 1;
      inComment = false;
      continue;
    }
    if (inComment) {
      ++at.column;
      continue;
    }
    if (inString) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
        at.column += 2;
        continue;
      }
      if (c == '"')
        inString = false;
      ++at.column;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      inComment = true;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit)
        return at;
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      if (depth > 0)
        --depth;
    }
    ++at.column;
  }
  return std::nullopt;
}

/// "NAME:LINE:COL: ..." for MLIR text `text` named `name` whose brackets
/// nest deeper than kMaxMlirNesting; empty if they do not.
inline std::string deepNestingError(std::string_view text,
                                    std::string_view name) {
  std::optional<TextPosition> at = findDeepNesting(text, kMaxMlirNesting);
  if (!at)
    return "";
  return std::string(name) + ":" + std::to_string(at->line) + ":" +
         std::to_string(at->column) + ": brackets nest more than " +
         std::to_string(kMaxMlirNesting) +
         " deep here; pipewave does not parse MLIR text nested this deeply "
         "(no model export does; the parser would run out of stack)";
}

} // namespace pipewave

#endif // PIPEWAVE_SUPPORT_NESTINGDEPTH_H
