//===- ExecutorNonfinite.cpp - The step's check for non-finite values -----===//
//
// Part of the pipewave project.
//
// --on-nonfinite: every rank looks at the gradients of its stages (each
// stage's flat buffer at once, then the parameters of a bad one for the
// first non-finite gradient) and, on the rank holding the last stage, at its
// part of the loss; one all-reduce of a flag makes the answer the same on
// every rank. Skip looks before the step's updates. Stop on the host looks
// after them: the updates read every gradient anyway and tell whether each
// was finite (Device::checksInUpdate()), so no pass of its own is needed.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Executor.h"

namespace pipewave::runtime {

std::string Executor::findNonfinite() {
  for (size_t s = 0; s < stages.size(); ++s) {
    const StageState &st = stages[s];
    if (!st.held || !st.flatGrad)
      continue;
    // Gradients this step's updates read have their answers already;
    // otherwise the stage's flat buffer is scanned first.
    bool inUpdates = !st.parameters.empty();
    for (int p : st.parameters)
      inUpdates = inUpdates && checkedInUpdate(trained[p]);
    if (!inUpdates && device.allFinite(compute, st.flatGrad, st.flatCount))
      continue;
    for (int p : st.parameters) {
      const TrainedParameter &parameter = trained[p];
      bool finite =
          checkedInUpdate(parameter)
              ? parameter.gradFinite
              : device.allFinite(compute, parameter.grad, parameter.count);
      if (!finite)
        return "the gradient of parameter '" +
               std::string(model.inputs[parameter.input].name) + "' (stage " +
               std::to_string(s) + ")";
    }
    if (!inUpdates)
      return "a gradient of stage " + std::to_string(s);
  }
  if (!outputTensors.empty() && outputTensors[0].dtype == PW_F32 &&
      !device.allFinite(compute, static_cast<const float *>(outputMemory[0]),
                        outputTensors[0].bytes() / sizeof(float)))
    return "the loss";
  return "";
}

bool Executor::agreeNonfinite() {
  finding = findNonfinite();
  double flag = finding.empty() ? 0 : 1;
  backend.wait(backend.iallreduce(&flag, 1, PW_F64, ReduceOp::Max, {}),
               "the other ranks to check step " + std::to_string(step) +
                   " for non-finite values");
  stepNonfinite = flag > 0;
  return stepNonfinite;
}

} // namespace pipewave::runtime
