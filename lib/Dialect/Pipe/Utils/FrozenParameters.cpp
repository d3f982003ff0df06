//===- FrozenParameters.cpp - Freezing parameters by name -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Utils/FrozenParameters.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"

#include "llvm/Support/GlobPattern.h"

using namespace mlir;

LogicalResult
pipewave::pipe::freezeParameters(func::FuncOp entry,
                                 const std::vector<std::string> &globs,
                                 std::string &error) {
  for (const std::string &glob : globs) {
    llvm::Expected<llvm::GlobPattern> pattern = llvm::GlobPattern::create(glob);
    if (!pattern) {
      error = "--frozen '" + glob + "': " + llvm::toString(pattern.takeError());
      return failure();
    }
    bool matched = false;
    std::string names;
    for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
      if (!isParam(entry, i))
        continue;
      std::string name = getArgName(entry, i);
      if (names.size() < 200)
        names += (names.empty() ? "" : ", ") + name;
      if (!pattern->match(name))
        continue;
      setFrozenArgAttr(entry, i);
      matched = true;
    }
    if (!matched) {
      error = "--frozen '" + glob + "' matches no parameter (parameters: " +
              (names.empty() ? "none" : names) +
              (names.size() >= 200 ? ", ..." : "") + ")";
      return failure();
    }
  }
  return success();
}
