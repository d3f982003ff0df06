//===- Error.h - Runtime errors and exit codes ------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The runtime reports every failure by throwing Error, a message plus the
// process exit code it maps to. Exceptions never cross the C ABI:
// pw_runtime_main catches them, and during a step turns them into an abort of
// the whole job (Backend::abort).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_ERROR_H
#define PIPEWAVE_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace pipewave::runtime {

/// Process exit codes of a compiled model.
enum ExitCode : int {
  ExitOk = 0,
  /// A failure while running: a timed-out wait, a dead peer, an --expect
  /// mismatch, an I/O error writing outputs.
  ExitFailure = 1,
  /// Bad command line or inputs: unknown option, missing or mis-shaped data,
  /// wrong number of ranks, bad --init file.
  ExitUsage = 2,
  /// The compiled pw_model is malformed (a compiler bug).
  ExitBadModel = 3,
};

/// A runtime failure with a self-contained, one-line message.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message, int exitCode = ExitFailure)
      : std::runtime_error(message), exitCode(exitCode) {}

  int exitCode;
};

/// Throws Error(message, ExitUsage).
[[noreturn]] void usageError(const std::string &message);

/// Throws Error(message, ExitBadModel).
[[noreturn]] void modelError(const std::string &message);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_ERROR_H
