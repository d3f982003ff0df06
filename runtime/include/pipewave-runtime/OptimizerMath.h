//===- OptimizerMath.h - Per-element SGD/Adam updates, host and GPU -*- C++
//-*-===//
//
// Part of the pipewave project.
//
// The element-wise formulas of optimizerUpdate() (Optimizer.h), shared by
// the CPU runtime (Optimizer.cpp) and the CUDA device's kernels, so both
// compute the same float operations in the same order. The scalars are
// prepared once per update on the host (sgdScalars(), adamScalars(), with
// PyTorch's float and double conversions); each element then runs one
// inline function. With nvcc the functions are `__host__ __device__`;
// otherwise they are plain C++. Whoever compiles them must not contract
// multiply-adds: Optimizer.cpp is built with -ffp-contract=off and the
// CUDA kernels with -fmad=false. sqrtf and '/' are IEEE correctly rounded
// on both sides (nvcc's default -prec-sqrt=true -prec-div=true; never
// build the kernels with --use_fast_math).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_OPTIMIZERMATH_H
#define PIPEWAVE_RUNTIME_OPTIMIZERMATH_H

#include "pipewave-runtime/model.h"

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define PW_HOST_DEVICE __host__ __device__
#else
#define PW_HOST_DEVICE
#endif

namespace pipewave::runtime {

struct OptimizerConfig;

/// SGD's scalars for one update (see Optimizer.h for the formulas).
struct SgdScalars {
  float wd = 0;    ///< weight decay, as float
  float mu = 0;    ///< momentum
  float keep = 1;  ///< 1 - dampening
  float negLr = 0; ///< -lr
  bool decay = false;
  bool momentum = false;
  bool nesterov = false;
  /// The first update: the momentum buffer starts as the gradient.
  bool first = false;
};

/// Adam's and AdamW's scalars for one update.
struct AdamScalars {
  float wd = 0;          ///< L2 weight decay (Adam)
  float decay = 1;       ///< 1 - lr * wd (AdamW)
  float w = 0;           ///< lerp weight 1 - beta1
  float b2 = 0;          ///< beta2
  float c2 = 0;          ///< 1 - beta2
  float negStepSize = 0; ///< -(lr / (1 - beta1^t)), in double then float
  float c2Sqrt = 1;      ///< sqrt(1 - beta2^t), in double then float
  float eps = 0;
  bool decayOn = false;     ///< weight decay != 0
  bool decoupled = false;   ///< AdamW
  bool smallWeight = false; ///< |w| < 0.5 (torch.lerp's branch)
};

/// The scalars of update number `step` (>= 1) of `config` (host only).
SgdScalars sgdScalars(const OptimizerConfig &config, int64_t step);
AdamScalars adamScalars(const OptimizerConfig &config, int64_t step);

/// `s` in the fields of an update a weight-gradient product runs
/// (model.h's pw_fused_update; its kernel repeats sgdElement below).
inline void setFusedSgd(pw_fused_update &u, const SgdScalars &s) {
  u.weight_decay = s.wd;
  u.momentum = s.mu;
  u.keep = s.keep;
  u.neg_lr = s.negLr;
  u.decay = s.decay;
  u.nesterov = s.nesterov;
  u.first = s.first;
}

/// One SGD element: returns the new parameter; `buf` (the momentum buffer
/// element, used when s.momentum) is updated in place.
PW_HOST_DEVICE inline float sgdElement(const SgdScalars &s, float p, float grad,
                                       float *buf) {
  float g = grad;
  if (s.decay)
    g = g + s.wd * p;
  if (s.momentum) {
    // torch.clone(grad) at the first step.
    float b = s.first ? g : *buf * s.mu + s.keep * g;
    *buf = b;
    g = s.nesterov ? g + s.mu * b : b;
  }
  return p + s.negLr * g;
}

/// One Adam/AdamW element: returns the new parameter; `m` and `v` (exp_avg
/// and exp_avg_sq) are updated in place.
PW_HOST_DEVICE inline float adamElement(const AdamScalars &s, float p,
                                        float grad, float *m, float *v) {
  float g = grad;
  if (s.decayOn) {
    if (s.decoupled)
      p = p * s.decay;
    else
      g = g + s.wd * p;
  }
  *m = s.smallWeight ? *m + s.w * (g - *m) : g - (g - *m) * (1.0f - s.w);
  *v = *v * s.b2;
  *v = *v + (s.c2 * g) * g;
  float denom = sqrtf(*v) / s.c2Sqrt + s.eps;
  return p + (s.negStepSize * *m) / denom;
}

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_OPTIMIZERMATH_H
