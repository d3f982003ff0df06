//===- Check.cpp - pipewave-calibrate --check -----------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Check.h"
#include "Compute.h"
#include "Drift.h"
#include "MatmulKernels.h"

#include "pipewave/Simulator/Device.h"

#include <cstdio>

namespace pipewave::calibrate {

namespace {

/// A median drift outside [1 / kDriftWarning, kDriftWarning] gets a warning.
constexpr double kDriftWarning = 1.25;

} // namespace

int checkAgainst(Runner &runner, const std::string &device, bool quick) {
  std::string error;
  std::optional<sim::DeviceSpec> spec = sim::lookupDevice(device, error);
  if (!spec) {
    std::fprintf(stderr, "pipewave-calibrate: error: %s\n", error.c_str());
    return 1;
  }
  if (!spec->calibration) {
    std::fprintf(stderr,
                 "pipewave-calibrate: error: device '%s' has no calibration "
                 "to check against (a shipped device file describes a "
                 "machine, it was not measured on this one); run "
                 "pipewave-calibrate to make one\n",
                 spec->name.c_str());
    return 1;
  }
  const sim::Calibration &calibrated = *spec->calibration;
  std::fprintf(stderr,
               "pipewave-calibrate: checking this machine against device "
               "'%s' (one%s pass)\n",
               spec->name.c_str(), quick ? " quick" : "");
  // The models compile with the kernels the calibration chose, as models
  // compiled for that device do.
  if (!calibrated.matmulKernels.empty())
    runner.setCompileFlags(" --matmul-choice=" +
                           matmulChoiceFlag(calibrated.matmulKernels));
  sim::Calibration now;
  SamplePool loops;
  measureCompute(runner, loops, quick, now,
                 [](const char *, double, const char *) {});
  std::vector<DriftTerm> terms = driftAgainst(now, calibrated);
  if (terms.empty()) {
    std::fprintf(stderr,
                 "pipewave-calibrate: error: device '%s' has none of the "
                 "tables this check measures\n",
                 spec->name.c_str());
    return 1;
  }
  for (const DriftTerm &term : terms)
    std::fprintf(stderr, "  %-34s %.2fx\n", term.name.c_str(), term.ratio);
  double drift = medianDrift(terms);
  std::fprintf(stderr,
               "pipewave-calibrate: this machine now takes %.2fx the times "
               "device '%s' predicts (median of %zu figures)\n",
               drift, spec->name.c_str(), terms.size());
  if (drift > kDriftWarning || drift < 1 / kDriftWarning)
    std::fprintf(stderr,
                 "pipewave-calibrate: warning: predictions on device '%s' "
                 "(sched-simulate, schedule=auto, the planner) are off by "
                 "about that factor here now: the machine is busier or "
                 "quieter than when it was calibrated (other processes or "
                 "virtual machines on its cores), or it is another machine. "
                 "Recalibrate when it runs as it will for training.\n",
                 spec->name.c_str());
  return 0;
}

} // namespace pipewave::calibrate
