//===- TrainModelFused.cpp - The training test model's fused updates ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// TrainConfig::fusedUpdates: the model's arm_updates (model.h) and what the
// whole backward does with a weight's gradient, as a weight-gradient
// product that takes its parameter does (lib/Target/CPU/FusedUpdate.h).
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include "pipewave-runtime/OptimizerMath.h"

#include <algorithm>
#include <cmath>

namespace pipewave::runtime::test {

namespace {

// The updates the runtime armed.
thread_local pw_fused_update *gArmed = nullptr;
thread_local int32_t gArmedCount = 0;

} // namespace

void trainArmUpdates(pw_fused_update *updates, int32_t count) {
  gArmed = updates;
  gArmedCount = count;
}

void trainWeightResult(const float *dw, float *out, const float *w, int count) {
  pw_fused_update *u = nullptr;
  for (int32_t i = 0; i < gArmedCount; ++i)
    if (gArmed[i].grad == out && gArmed[i].param == w && !gArmed[i].done)
      u = &gArmed[i];
  if (!u || !u->grad_dead)
    std::copy(dw, dw + count, out);
  if (!u)
    return;
  SgdScalars s;
  s.wd = u->weight_decay;
  s.mu = u->momentum;
  s.keep = u->keep;
  s.negLr = u->neg_lr;
  s.decay = u->decay;
  s.momentum = u->momentum_buffer != nullptr;
  s.nesterov = u->nesterov;
  s.first = u->first;
  for (int f = 0; f < count; ++f) {
    if (!std::isfinite(dw[f]))
      u->nonfinite = 1;
    u->param[f] =
        sgdElement(s, u->param[f], dw[f],
                   u->momentum_buffer ? &u->momentum_buffer[f] : nullptr);
  }
  u->done = 1;
  u->grad_left = u->grad_dead;
}

} // namespace pipewave::runtime::test
