/*===- FusedUpdate.h - SGD updates that gradient products run ---*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * pipe-fuse-updates turns the product that writes a parameter's whole
 * gradient last, after every read of the parameter in its backward
 * function, into pw_sgemm_update / pw_sgemm_batched_update (Kernels.c),
 * which also take the parameter. When the runtime has armed an update for
 * that gradient and parameter (pw_fused_update, pipewave-runtime/model.h),
 * the product updates the parameter from the gradient right after
 * computing it, while much of it is still in L2, instead of the optimizer
 * reading both arrays from the last-level cache after the backward;
 * otherwise it is a plain product. The element formula is OptimizerMath.h's
 * sgdElement: the same float operations in the same order (this file's object
 * is built with -ffp-contract=off, as the runtime's optimizer is), so the
 * parameters are the same bits either way.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_FUSEDUPDATE_H
#define PIPEWAVE_TARGET_CPU_FUSEDUPDATE_H

#include "pipewave-runtime/model.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The model's arm_updates (model.h): the calling thread's armed updates. */
void pw_arm_updates(pw_fused_update *updates, int32_t count);

/* The armed update, not yet done, whose gradient is `grad` and parameter
 * `param`, of `count` floats; NULL if none. */
pw_fused_update *pw_armed_update(const float *grad, const float *param,
                                 int64_t count);

/* Updates rows x cols parameter elements, P(i, j) = param[i * ps + j], from
 * the gradient G(i, j) = grad[i * gs + j]; param points into u->param (the
 * momentum buffer element is at the same offset). Records a non-finite
 * gradient value in u->nonfinite. */
void pw_update_rows(pw_fused_update *u, const float *grad, int64_t gs,
                    float *param, int64_t ps, int64_t rows, int64_t cols);

/* pw_update_rows 16 columns at a time: 0 without AVX-512. */
int pw_update_rows_avx512(pw_fused_update *u, const float *grad, int64_t gs,
                          float *param, int64_t ps, int64_t rows, int64_t cols);

#ifdef __cplusplus
}
#endif

#endif
