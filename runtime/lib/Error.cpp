//===- Error.cpp - Runtime errors -----------------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Error.h"

namespace pipewave::runtime {

void usageError(const std::string &message) { throw Error(message, ExitUsage); }

void modelError(const std::string &message) {
  throw Error("malformed model: " + message, ExitBadModel);
}

} // namespace pipewave::runtime
