//===- DriverStops.cpp - Steps that stop the run: NaNs and signals --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Signals.h"

namespace pipewave::runtime {

void Driver::flushStepLines() {
  // stdout is fully buffered (pw_runtime_main): the step lines go out before
  // any rank can exit, since a launcher ends the job at the first non-zero
  // exit and a rank's unflushed lines would be lost.
  std::fflush(stdout);
  backend->barrier("the other ranks to print their step lines");
}

bool Driver::reportNonfinite(const Executor &executor, int64_t step) {
  flushStepLines();
  std::vector<std::string> found =
      backend->gather(executor.nonfiniteFinding(), 0);
  bool stop = options.onNonfinite == NonfinitePolicy::Stop;
  if (backend->rank() != 0)
    return !stop;
  std::string what = "a value", where;
  for (size_t r = 0; r < found.size(); ++r)
    if (!found[r].empty()) {
      what = found[r];
      if (found.size() > 1)
        where = " on rank " + std::to_string(r);
      break;
    }
  std::string text =
      "step " + std::to_string(step) + ": " + what + where + " is not finite";
  std::string before = "step " + std::to_string(step - 1);
  if (!stop)
    text += "; its updates were skipped (--on-nonfinite skip): the "
            "parameters stay those after " +
            before;
  else if (executor.usesGraphs())
    text += "; stopping. Its updates ran inside the step's CUDA graph; "
            "nothing after " +
            before + " was saved";
  else if (executor.updatesBeforeCheck())
    text += "; stopping. Its updates ran, checking the gradients as they "
            "read them; nothing after " +
            before +
            " was saved (--on-nonfinite skip drops such a step and goes on)";
  else
    text += "; stopping before its updates: the parameters are those after " +
            before +
            " and nothing of this step was saved (--on-nonfinite skip drops "
            "such a step and goes on)";
  report(nullptr, text);
  return !stop;
}

int Driver::stopOnSignal(Executor &executor, int64_t step, int signo,
                         bool saved, int64_t nextPosition) {
  flushStepLines();
  bool save = training && options.checkpointOnSignal && !saved;
  if (save && !saveCheckpoint(executor, step, nextPosition))
    return ExitFailure;
  if (rank == 0) {
    std::string text = "a rank received " + signalName(signo) +
                       ": stopped after step " + std::to_string(step);
    if (training && (saved || save))
      text += " (its checkpoint is complete)";
    else if (training)
      text += " without a checkpoint of it (--checkpoint-on-signal writes "
              "one)";
    report(nullptr, text);
  }
  return 128 + signo;
}

} // namespace pipewave::runtime
