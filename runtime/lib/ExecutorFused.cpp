//===- ExecutorFused.cpp - SGD updates that gradient products run ---------===//
//
// Part of the pipewave project.
//
// pipe-fuse-updates lets the product that writes a parameter's gradient last
// in its backward function take the parameter (model.h's pw_fused_update).
// The executor arms an update for each parameter it may, right before the
// call of the stage's last backward (or weight-gradient) action of the step;
// the product then updates the parameter from the gradient right after
// computing it, and the optimizer action leaves the parameters whose update
// ran. The numbers are those of optimizerUpdate(): the same operations in
// the same order.
//
// An update may run there when nothing after it needs the parameter's old
// value or changes its gradient, and when it delays nothing: SGD (Adam's
// update stays a pass of its own); a device that runs the stage code on
// this thread (the host); no data-parallel all-reduce of the stage's
// gradients and no tied all-reduce of the parameter; one gradient target
// for the parameter on this rank; and the action the rank's last but its
// optimizer actions (a backward whose input gradient another rank waits
// for sends it before the optimizer runs; the update in the action would
// make that rank wait for it). Per step, also only without a check of the
// gradients before the updates (--on-nonfinite skip, graphs): under stop the
// products report whether the gradients they read were finite, as the host's
// optimizer does, and the ranks agree after the updates.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/OptimizerMath.h"

#include <algorithm>

namespace pipewave::runtime {

void Executor::planFusedUpdates() {
  fuseAt.assign(model.num_stages, -1);
  if (!model.arm_updates || optimizer.kind != OptimizerKind::SGD ||
      !device.callsInline() || model.forward_only)
    return;
  std::vector<char> blocked(model.num_stages, 0);
  std::vector<int> optimizerAt(model.num_stages, -1);
  std::vector<int> tiedInputs;
  for (int i = 0; i < program.num_actions; ++i) {
    const pw_action &action = program.actions[i];
    switch (action.kind) {
    case PW_ACT_BACKWARD:
    case PW_ACT_BACKWARD_WEIGHT:
      fuseAt[action.stage] = i;
      break;
    case PW_ACT_ALLREDUCE:
      if (action.group_size > 1)
        blocked[action.stage] = 1;
      break;
    case PW_ACT_TIED_ALLREDUCE:
      if (action.group_size > 1)
        tiedInputs.push_back(action.param);
      break;
    case PW_ACT_OPTIMIZER:
      optimizerAt[action.stage] = i;
      break;
    default:
      break;
    }
  }
  // A forward (or an input gradient) of the stage after its last gradient
  // action would read the updated parameters.
  for (int i = 0; i < program.num_actions; ++i) {
    const pw_action &action = program.actions[i];
    if ((action.kind == PW_ACT_FORWARD ||
         action.kind == PW_ACT_BACKWARD_INPUT) &&
        i > fuseAt[action.stage])
      blocked[action.stage] = 1;
  }
  // The update runs inside the action, before what follows it: only where
  // nothing but the updates would (the rank's last compute, then optimizer
  // actions). After a stage's backward that sends an input gradient, it
  // would hold the message back and the receiving rank with it.
  for (int s = 0; s < model.num_stages; ++s) {
    if (fuseAt[s] < 0)
      continue;
    for (int i = fuseAt[s] + 1; i < program.num_actions; ++i) {
      const pw_action &action = program.actions[i];
      bool updatesOnly = action.kind == PW_ACT_OPTIMIZER ||
                         ((action.kind == PW_ACT_ALLREDUCE ||
                           action.kind == PW_ACT_TIED_ALLREDUCE) &&
                          action.group_size <= 1);
      if (!updatesOnly)
        blocked[s] = 1;
    }
    if (blocked[s] || optimizerAt[s] < fuseAt[s])
      fuseAt[s] = -1;
  }
  std::vector<int> targets(trained.size(), 0);
  for (const StageState &st : stages)
    for (const GradTarget &target : st.targets)
      if (target.parameter >= 0)
        ++targets[target.parameter];
  for (size_t p = 0; p < trained.size(); ++p) {
    TrainedParameter &parameter = trained[p];
    parameter.fusable = targets[p] == 1 && fuseAt[parameter.stage] >= 0 &&
                        std::find(tiedInputs.begin(), tiedInputs.end(),
                                  parameter.input) == tiedInputs.end();
  }
}

void Executor::armFusedUpdates(int index, FusedScope &scope) {
  const pw_action &action = program.actions[index];
  if (!fuseThisStep || fuseAt.empty() || fuseAt[action.stage] != index)
    return;
  const StageState &st = stages[action.stage];
  SgdScalars s = sgdScalars(optimizer, st.steps + 1);
  fusedUpdates.clear();
  fusedParameters.clear();
  for (int p : st.parameters) {
    const TrainedParameter &parameter = trained[p];
    if (!parameter.fusable)
      continue;
    pw_fused_update u = {};
    u.grad = parameter.grad;
    u.param = parameter.data;
    u.momentum_buffer = s.momentum ? parameter.state.at(0) : nullptr;
    u.count = static_cast<int64_t>(parameter.count);
    // Nothing reads a fused parameter's gradient after its update (no
    // all-reduce, no tied copy, no later action of the stage) but
    // gradient().
    u.grad_dead = !keepGrads;
    setFusedSgd(u, s);
    fusedUpdates.push_back(u);
    fusedParameters.push_back(p);
  }
  if (fusedUpdates.empty())
    return;
  model.arm_updates(fusedUpdates.data(),
                    static_cast<int32_t>(fusedUpdates.size()));
  scope.executor = this;
}

Executor::FusedScope::~FusedScope() {
  if (executor)
    executor->model.arm_updates(nullptr, 0);
}

void Executor::finishFusedUpdates() {
  for (size_t k = 0; k < fusedUpdates.size(); ++k) {
    const pw_fused_update &u = fusedUpdates[k];
    if (!u.done)
      continue;
    TrainedParameter &parameter = trained[fusedParameters[k]];
    parameter.fusedStep = step;
    if (u.grad_left)
      parameter.gradLeftStep = step;
    if (checkInUpdates) {
      parameter.gradFinite = !u.nonfinite;
      parameter.checkedStep = step;
    }
  }
  fusedUpdates.clear();
}

size_t Executor::fusedUpdatesLastStep() const {
  return static_cast<size_t>(std::count_if(
      trained.begin(), trained.end(), [&](const TrainedParameter &parameter) {
        return step > 0 && parameter.fusedStep == step;
      }));
}

size_t Executor::gradientsLeftLastStep() const {
  return static_cast<size_t>(std::count_if(
      trained.begin(), trained.end(), [&](const TrainedParameter &parameter) {
        return step > 0 && parameter.gradLeftStep == step;
      }));
}

} // namespace pipewave::runtime
