/*===- FusedUpdate.c - SGD updates that gradient products run -------------===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * See FusedUpdate.h. Built with -ffp-contract=off: every multiply and add
 * below rounds on its own, as in the runtime's optimizer.
 *
 *===----------------------------------------------------------------------===*/

#include "FusedUpdate.h"

#include <stddef.h>
#include <string.h>

static _Thread_local pw_fused_update *armed;
static _Thread_local int32_t armedCount;

void pw_arm_updates(pw_fused_update *updates, int32_t count) {
  armed = count > 0 ? updates : NULL;
  armedCount = count > 0 ? count : 0;
}

pw_fused_update *pw_armed_update(const float *grad, const float *param,
                                 int64_t count) {
  for (int32_t i = 0; i < armedCount; ++i) {
    pw_fused_update *u = &armed[i];
    if (u->grad == grad && u->param == param && u->count == count && !u->done)
      return u;
  }
  return NULL;
}

/* OptimizerMath.h's sgdElement. */
static inline float sgdElement(const pw_fused_update *u, float p, float grad,
                               float *buf) {
  float g = grad;
  if (u->decay)
    g = g + u->weight_decay * p;
  if (u->momentum_buffer) {
    float b = u->first ? g : *buf * u->momentum + u->keep * g;
    *buf = b;
    g = u->nesterov ? g + u->momentum * b : b;
  }
  return p + u->neg_lr * g;
}

static inline uint32_t nonfiniteBit(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return (bits & 0x7f800000u) == 0x7f800000u;
}

void pw_update_rows(pw_fused_update *u, const float *grad, int64_t gs,
                    float *param, int64_t ps, int64_t rows, int64_t cols) {
  if (pw_update_rows_avx512(u, grad, gs, param, ps, rows, cols))
    return;
  float *buf =
      u->momentum_buffer ? u->momentum_buffer + (param - u->param) : NULL;
  uint32_t bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float g = grad[i * gs + j];
      bad |= nonfiniteBit(g);
      param[i * ps + j] =
          sgdElement(u, param[i * ps + j], g, buf ? buf + i * ps + j : NULL);
    }
  if (bad)
    u->nonfinite = 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define PW_AVX512 __attribute__((target("avx512f")))

static inline PW_AVX512 __mmask16 firstLanes(int64_t count) {
  return (__mmask16)(count >= 16 ? 0xffffu : (1u << count) - 1u);
}

/* sgdElement on 16 lanes: the same roundings (no fused multiply-add). */
static PW_AVX512 void updateRows(const pw_fused_update *u, const float *grad,
                                 int64_t gs, float *param, int64_t ps,
                                 float *buf, int64_t rows, int64_t cols,
                                 __mmask16 *bad) {
  const __m512 wd = _mm512_set1_ps(u->weight_decay);
  const __m512 mu = _mm512_set1_ps(u->momentum);
  const __m512 keep = _mm512_set1_ps(u->keep);
  const __m512 negLr = _mm512_set1_ps(u->neg_lr);
  const __m512i exponent = _mm512_set1_epi32(0x7f800000);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; j += 16) {
      __mmask16 lanes = firstLanes(cols - j);
      __m512 g = _mm512_maskz_loadu_ps(lanes, grad + i * gs + j);
      float *pp = param + i * ps + j;
      __m512 p = _mm512_maskz_loadu_ps(lanes, pp);
      __m512i bits = _mm512_and_si512(_mm512_castps_si512(g), exponent);
      *bad |= _mm512_mask_cmpeq_epi32_mask(lanes, bits, exponent);
      if (u->decay)
        g = _mm512_add_ps(g, _mm512_mul_ps(wd, p));
      if (buf) {
        float *bb = buf + i * ps + j;
        __m512 b =
            u->first ? g
                     : _mm512_add_ps(
                           _mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, bb), mu),
                           _mm512_mul_ps(keep, g));
        _mm512_mask_storeu_ps(bb, lanes, b);
        g = u->nesterov ? _mm512_add_ps(g, _mm512_mul_ps(mu, b)) : b;
      }
      _mm512_mask_storeu_ps(pp, lanes,
                            _mm512_add_ps(p, _mm512_mul_ps(negLr, g)));
    }
}

int pw_update_rows_avx512(pw_fused_update *u, const float *grad, int64_t gs,
                          float *param, int64_t ps, int64_t rows,
                          int64_t cols) {
  if (!__builtin_cpu_supports("avx512f"))
    return 0;
  float *buf =
      u->momentum_buffer ? u->momentum_buffer + (param - u->param) : NULL;
  __mmask16 bad = 0;
  updateRows(u, grad, gs, param, ps, buf, rows, cols, &bad);
  if (bad)
    u->nonfinite = 1;
  return 1;
}

#else /* not x86-64 with GCC or Clang */

int pw_update_rows_avx512(pw_fused_update *u, const float *grad, int64_t gs,
                          float *param, int64_t ps, int64_t rows,
                          int64_t cols) {
  (void)u, (void)grad, (void)gs, (void)param, (void)ps, (void)rows;
  (void)cols;
  return 0;
}

#endif
