//===- Optimizer.h - SGD, Adam and AdamW on f32 parameters ------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The optimizer step of a stage, applied by the executor to every trained
// parameter with its accumulated (and, with replicas, all-reduced) gradient.
// The updates follow PyTorch's single-tensor (non-foreach) implementations of
// torch.optim.SGD, Adam and AdamW, with the same float operations in the same
// order: hyper-parameters are doubles converted to float where PyTorch
// converts a Python scalar for a tensor kernel, bias corrections are computed
// in double as PyTorch's Python code does, parameters and state are f32, and
// no multiply-add is fused (PyTorch's vectorised kernels may fuse some, so
// results agree with PyTorch to about one ulp per step, not bit for bit).
//
//   SGD (momentum mu, dampening d, weight decay wd, nesterov):
//     g = grad + wd * p                            (when wd != 0)
//     b = g at the first step, else b * mu + (1 - d) * g   (when mu != 0)
//     g = nesterov ? g + mu * b : b                (when mu != 0)
//     p = p + (-lr) * g
//   Adam (betas b1, b2, eps, weight decay wd as L2 on the gradient):
//     g = grad + wd * p                            (when wd != 0)
//     m = lerp(m, g, 1 - b1)                       (torch.lerp's formula)
//     v = v * b2 + ((1 - b2) * g) * g
//     step_size = lr / (1 - b1^t);  c2 = sqrt(1 - b2^t)   (double)
//     p = p + ((-step_size) * m) / (sqrt(v) / c2 + eps)
//   AdamW: Adam without the L2 term, and p = p * (1 - lr * wd) first.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_OPTIMIZER_H
#define PIPEWAVE_RUNTIME_OPTIMIZER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pipewave::runtime {

enum class OptimizerKind { SGD, Adam, AdamW };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::SGD;
  double lr = 0.01;
  /// SGD only.
  double momentum = 0;
  double dampening = 0;
  bool nesterov = false;
  /// The resolved weight decay (defaults: 0 for SGD and Adam, 0.01 for AdamW).
  double weightDecay = 0;
  /// Adam and AdamW only.
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
};

/// What a training step does when a gradient or the loss is not finite
/// (--on-nonfinite; the executor checks, see
/// Executor::setNonfinitePolicy). Off: nothing is checked. Stop and Skip:
/// before any update of the step, every rank looks at its stages' gradients
/// (after their all-reduce) and its part of the loss, and the ranks agree (one
/// all-reduce of a flag); if any value is not finite, no rank applies the
/// step's updates. The driver then stops (Stop) or goes on (Skip).
enum class NonfinitePolicy { Off, Stop, Skip };

/// "sgd", "adam", "adamw".
const char *optimizerName(OptimizerKind kind);
/// Parses "sgd", "adam" or "adamw"; false otherwise.
bool parseOptimizerKind(const std::string &text, OptimizerKind &kind);
/// PyTorch's default weight decay of `kind`.
double defaultWeightDecay(OptimizerKind kind);

/// The per-parameter state tensors of `config`, each shaped like the
/// parameter, with the names PyTorch's state_dict uses: "momentum_buffer"
/// (SGD with momentum), "exp_avg" and "exp_avg_sq" (Adam, AdamW).
std::vector<std::string> optimizerStateNames(const OptimizerConfig &config);

/// The hyper-parameters that matter for `config.kind`, as "name=value"
/// items with values printed exactly ("%.17g"), e.g. "lr=0.01 momentum=0.9".
/// Two configs with the same text update parameters identically.
std::string describeOptimizer(const OptimizerConfig &config);

/// Applies update number `step` (1 for the first update of the run; Adam's
/// bias correction uses it, SGD initialises its momentum buffer with the
/// gradient at step 1) to `count` parameters `param` with gradient `grad`.
/// `state` holds optimizerStateNames(config).size() arrays of `count`
/// floats (zero before the first step). `grad` is not modified. Returns
/// whether every gradient it read was finite: the update pass reads them
/// anyway, so a run that checks its steps needs no pass of its own
/// (Device::checksInUpdate()).
bool optimizerUpdate(const OptimizerConfig &config, int64_t step, float *param,
                     const float *grad, float *const *state, size_t count);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_OPTIMIZER_H
