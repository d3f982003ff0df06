//===- Signals.h - SIGTERM and SIGINT, turned into a clean stop -*- C++ -*-===//
//
// Part of the pipewave project.
//
// A compiled model catches SIGTERM and SIGINT while it runs steps: the
// handler only records the signal (and restores the default action, so a
// second one ends the process at once). The driver looks at it after each
// step; the ranks agree (with the step time's all-reduce), so every rank
// stops after the same step, writes a checkpoint of it with
// --checkpoint-on-signal, and exits 128 + the signal's number.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_SIGNALS_H
#define PIPEWAVE_RUNTIME_SIGNALS_H

#include <string>

namespace pipewave::runtime {

/// Installs the handlers of SIGTERM and SIGINT (idempotent).
void catchStopSignals();

/// The number of the first stop signal received since catchStopSignals(),
/// or 0.
int pendingStopSignal();

/// "SIGTERM", "SIGINT", or "signal N".
std::string signalName(int signo);

/// Test and restart support: forgets a received signal and re-arms.
void resetStopSignal();

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_SIGNALS_H
