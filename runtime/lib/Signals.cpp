//===- Signals.cpp - SIGTERM and SIGINT, turned into a clean stop ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Signals.h"

#include <csignal>
#include <signal.h>

namespace pipewave::runtime {

namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void onStopSignal(int signo) {
  if (!received)
    received = signo;
  // A second signal ends the process as if nothing had caught it.
  std::signal(signo, SIG_DFL);
}

} // namespace

void catchStopSignals() {
  struct sigaction action = {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  // Interrupted system calls restart: the backends' waits go on.
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

int pendingStopSignal() { return received; }

std::string signalName(int signo) {
  if (signo == SIGTERM)
    return "SIGTERM";
  if (signo == SIGINT)
    return "SIGINT";
  return "signal " + std::to_string(signo);
}

void resetStopSignal() {
  received = 0;
  catchStopSignals();
}

} // namespace pipewave::runtime
