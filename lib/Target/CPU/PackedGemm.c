/*===- PackedGemm.c - AVX-512 GEMM with packed operands -------------------===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * The products of a full batch (256 x 512 x 512 and the like) on one core.
 * OpenBLAS 0.3.21's SkylakeX/Cooperlake sgemm runs them at 85-90% of the
 * core's FMA peak; its inner kernel is at the peak, and the rest goes to
 * packing operands that come out of the L3 cache, and to clearing C before a
 * beta = 0 product. This kernel packs the same way (BLIS's loops) but hides
 * the packing's memory traffic behind the arithmetic:
 *
 *  - C = beta * C + A * B in blocks of kKc steps of k. A's rows are packed
 *    into panels of at most kMr rows ([k][rows], rows spread evenly so that
 *    no panel is short), B's columns into one strip of kNr columns at a time
 *    ([k][kNr], 64-byte aligned), each element once per block.
 *  - A kMr x kNr tile of C accumulates in 28 of the 32 AVX-512 registers:
 *    per step of k, two loads of the B strip (in L1) and one broadcast of A
 *    per row, 28 FMAs. The tile is written once per block (beta = 0 writes,
 *    never clears).
 *  - While a strip computes, its tiles prefetch what comes next: the next
 *    strip of B, a share of the next block of A (in the first strip, the
 *    next panel's source whole, a line every step), and the C rows of the
 *    next tile (for writing). The packing then reads from L1 or L2.
 *
 * Measured (bench/small-gemm/run.sh, docs/bench.md): see pw_packed_gemm_takes.
 * The packing buffer is the per-thread GEMM scratch (GemmScratch.c), so the
 * steady state allocates nothing.
 *
 *===----------------------------------------------------------------------===*/

#include "PackedGemm.h"
#include "Epilogue.h"
#include "GemmScratch.h"
#include "SmallGemm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "Avx512Transpose.h"
#include "GemmPrefetch.h"

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define PW_AVX512 __attribute__((target("avx512f,prfchw")))
#define PW_INLINE static inline __attribute__((always_inline))
enum { kMr = 14, kNr = 32, kKc = 256 };
enum { kPackB = 1, kPackA = 2 };

/* What one tile prefetches: the next B strip, its share of the next A
 * block, the next tile of C. */
typedef struct Prefetch {
  pw_lines b, a, c;
  int aTwice; /* two lines of `a` a step: more lines than the tile steps */
} Prefetch;

PW_INLINE __mmask16 firstLanes(int64_t count) {
  return (__mmask16)(count >= 16 ? 0xffffu : (1u << count) - 1u);
}

/* C[0..mr, 0..kNr) = beta * C + sum_p ap[p][r] * bp[p][:], beta 0 leaving
 * C unread. With kPackB in `packing`, B's rows come from bsrc (row stride
 * bld) and the tile writes them into bp as it goes (a strip's first tile);
 * with kPackA, A's steps come from asrc (mr contiguous floats a step, step
 * stride ald) and it writes them into ap (a panel's tile in the first
 * strip). Either way the loads overlap the arithmetic. Called with constant
 * mr and packing so that the accumulators live in registers. */
PW_INLINE PW_AVX512 void tile(int mr, int packing, int64_t kc, float *ap,
                              const float *asrc, int64_t ald, float *bp,
                              const float *bsrc, int64_t bld, float beta,
                              float *c, int64_t ldc, const Prefetch *fetch) {
  pw_line_cursor fb = pw_cursor(fetch->b), fa = pw_cursor(fetch->a),
                 fc = pw_cursor(fetch->c);
  __m512 acc[kMr][2];
#pragma GCC unroll 14
  for (int r = 0; r < mr; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    switch (p & 7) {
    case 0:
      pw_fetch_read(&fb);
      break;
    case 2:
    case 6:
      pw_fetch_write(&fc);
      break;
    default:
      break;
    }
    /* A line of A every step: the first strip fetches the next panel's
     * source whole (mr rows of kc floats, up to 224 lines), later strips a
     * share of the next block. */
    pw_fetch_read(&fa);
    if (fetch->aTwice)
      pw_fetch_read(&fa);
    __m512 b0, b1;
    const float *abc = ap;
    if (packing & kPackA) {
      __mmask16 rows = (__mmask16)((1u << mr) - 1u);
      _mm512_mask_storeu_ps(ap, rows, _mm512_maskz_loadu_ps(rows, asrc));
      abc = asrc;
      asrc += ald;
    }
    if (packing & kPackB) {
      b0 = _mm512_loadu_ps(bsrc);
      b1 = _mm512_loadu_ps(bsrc + 16);
      _mm512_store_ps(bp, b0);
      _mm512_store_ps(bp + 16, b1);
      bsrc += bld;
    } else {
      b0 = _mm512_load_ps(bp);
      b1 = _mm512_load_ps(bp + 16);
    }
#pragma GCC unroll 14
    for (int r = 0; r < mr; ++r) {
      /* An explicit broadcast: folded into the FMAs as {1to16} it would
       * cost a load per FMA. */
      __m512 av;
      __asm__("vbroadcastss %1, %0" : "=v"(av) : "m"(abc[r]));
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
    ap += mr;
    bp += kNr;
  }
  __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 14
  for (int r = 0; r < mr; ++r) {
    float *out = c + r * ldc;
    __m512 x0 = acc[r][0], x1 = acc[r][1];
    if (beta != 0.0f) {
      x0 = _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(out), x0);
      x1 = _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(out + 16), x1);
    }
    _mm512_storeu_ps(out, x0);
    _mm512_storeu_ps(out + 16, x1);
  }
}

#define PW_TILE_CASE(R)                                                        \
  case R:                                                                      \
    switch (packing) {                                                         \
    case 0:                                                                    \
      tile(R, 0, kc, ap, asrc, ald, bp, bsrc, bld, beta, c, ldc, fetch);       \
      break;                                                                   \
    case kPackA:                                                               \
      tile(R, kPackA, kc, ap, asrc, ald, bp, bsrc, bld, beta, c, ldc, fetch);  \
      break;                                                                   \
    case kPackB:                                                               \
      tile(R, kPackB, kc, ap, asrc, ald, bp, bsrc, bld, beta, c, ldc, fetch);  \
      break;                                                                   \
    default:                                                                   \
      tile(R, kPackA | kPackB, kc, ap, asrc, ald, bp, bsrc, bld, beta, c, ldc, \
           fetch);                                                             \
      break;                                                                   \
    }                                                                          \
    break;

/* tile() for any mr; asrc and bsrc non-null to pack A's panel and B's strip
 * on the way. */
static PW_AVX512 void anyTile(int mr, int64_t kc, float *ap, const float *asrc,
                              int64_t ald, float *bp, const float *bsrc,
                              int64_t bld, float beta, float *c, int64_t ldc,
                              const Prefetch *fetch) {
  int packing = (asrc ? kPackA : 0) | (bsrc ? kPackB : 0);
  switch (mr) {
    PW_TILE_CASE(1)
    PW_TILE_CASE(2)
    PW_TILE_CASE(3)
    PW_TILE_CASE(4)
    PW_TILE_CASE(5)
    PW_TILE_CASE(6)
    PW_TILE_CASE(7)
    PW_TILE_CASE(8)
    PW_TILE_CASE(9)
    PW_TILE_CASE(10)
    PW_TILE_CASE(11)
    PW_TILE_CASE(12)
    PW_TILE_CASE(13)
    PW_TILE_CASE(14)
  default:
    break;
  }
}

/* dst[p * ldd + j] = X(p, j) = src[p * ps + j * js] for p < kc, j < w, and
 * 0 for w <= j < ldd; ps or js is 1. A unit js copies rows; a unit ps
 * transposes 16 x 16 blocks in registers. */
static PW_AVX512 void pack(const float *src, int64_t ps, int64_t js, int64_t kc,
                           int w, float *dst, int ldd) {
  for (int j0 = w; j0 < ldd; j0 += 16)
    for (int64_t p = 0; p < kc; ++p)
      _mm512_mask_storeu_ps(dst + p * ldd + j0, firstLanes(ldd - j0),
                            _mm512_setzero_ps());
  if (js == 1) {
    for (int j0 = 0; j0 < w; j0 += 16) {
      __mmask16 mask = firstLanes(w - j0);
      for (int64_t p = 0; p < kc; ++p)
        _mm512_mask_storeu_ps(dst + p * ldd + j0, mask,
                              _mm512_maskz_loadu_ps(mask, src + p * ps + j0));
    }
    return;
  }
  int64_t p0 = 0;
  for (; p0 + 16 <= kc; p0 += 16)
    for (int j0 = 0; j0 < w; j0 += 16) {
      int wj = w - j0 < 16 ? w - j0 : 16;
      __m512 block[16];
      pw_transpose16(src + j0 * js + p0, js, wj, block);
      for (int q = 0; q < 16; ++q)
        _mm512_mask_storeu_ps(dst + (p0 + q) * ldd + j0, firstLanes(wj),
                              block[q]);
    }
  for (; p0 < kc; ++p0)
    for (int j = 0; j < w; ++j)
      dst[p0 * ldd + j] = src[p0 + j * js];
}

/* A(i, p) = a[i * ars + p * acs], B(p, j) = b[p * brs + j * bcs]; ap holds
 * m x kKc floats, bp kKc x kNr (64-byte aligned). With ep (with a unit
 * column stride), each tile of the last block goes through it right after
 * its stores. */
/* The gradient's values of a tile, t (mr x nc, row stride kNr: the
 * product's terms): with beta, beta * G + t, as the tile would have stored
 * into G; then the parameter's update from them (param: the tile's first
 * element, row stride ps), G left as it is. */
static PW_AVX512 void updateTile(pw_fused_update *u, float *t, int mr, int nc,
                                 float beta, const float *g, int64_t ldg,
                                 float *param, int64_t ps) {
  if (beta != 0.0f) {
    __m512 vbeta = _mm512_set1_ps(beta);
    for (int r = 0; r < mr; ++r)
      for (int j = 0; j < nc; j += 16) {
        __mmask16 lanes = firstLanes(nc - j);
        float *x = t + r * kNr + j;
        _mm512_mask_storeu_ps(
            x, lanes,
            _mm512_fmadd_ps(vbeta,
                            _mm512_maskz_loadu_ps(lanes, g + r * ldg + j),
                            _mm512_maskz_loadu_ps(lanes, x)));
      }
  }
  pw_update_rows(u, t, kNr, param, ps, mr, nc);
}

/* With `direct` (a weight gradient's armed update, one block of k), each
 * tile lands in a buffer and updates its part of the parameter (param, row
 * stride ps) from there: C, the gradient, is read (beta != 0) but not
 * written. */
static PW_AVX512 void
packedGemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
           int64_t acs, const float *b, int64_t brs, int64_t bcs, float beta,
           const pw_epilogue *ep, float *c, int64_t ldc, float *ap, float *bp,
           pw_fused_update *direct, float *param, int64_t ps) {
  int64_t panels = (m + kMr - 1) / kMr, strips = (n + kNr - 1) / kNr;
  /* The first `extra` panels have one row more than the others. */
  int64_t rows = m / panels, extra = m % panels;
#define PW_PANEL_ROWS(q) ((int)(rows + ((q) < extra)))
  /* The source of row panel q (rows [i0, i0 + mr)) in block p0, as its
   * packing reads it. */
#define PW_A_SOURCE(i0, mr, p0, kc)                                            \
  (ars == 1 ? pw_region(a + (i0) + (p0) * acs, kc, mr, acs)                    \
            : pw_region(a + (i0) * ars + (p0), mr, kc, ars))
  /* Strip s (columns [j0, j0 + nc)) of B in block p0. */
#define PW_B_SOURCE(j0, nc, p0, kc)                                            \
  (bcs == 1 ? pw_region(b + (p0) * brs + (j0), kc, nc, brs)                    \
            : pw_region(b + (j0) * bcs + (p0), nc, kc, bcs))
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    int64_t kc = k - p0 < kKc ? k - p0 : kKc;
    int64_t kn = k - p0 - kc < kKc ? k - p0 - kc : kKc; /* the next block */
    float blockBeta = p0 == 0 ? beta : 1.0f;
    const pw_epilogue *blockEp = p0 + kc == k ? ep : NULL;
    /* The next block of A, prefetched a share per strip after the first
     * (which packs this block's A, panel by panel). */
    pw_lines nextA = pw_no_lines();
    if (kn > 0)
      nextA = PW_A_SOURCE(0, m, p0 + kc, kn);
    for (int64_t s = 0; s < strips; ++s) {
      int64_t j0 = s * kNr;
      int nc = n - j0 < kNr ? (int)(n - j0) : kNr;
      /* A whole strip of row-major B is packed by its first tile;
       * otherwise (a transposed B, a narrow strip) here. */
      const float *bsrc = b + p0 * brs + j0 * bcs;
      int tilePacks = bcs == 1 && nc == kNr;
      if (!tilePacks)
        pack(bsrc, brs, bcs, kc, nc, bp, kNr);
      /* The next strip: in this block, or the first of the next. */
      pw_lines stripB = pw_no_lines();
      if (s + 1 < strips)
        stripB = PW_B_SOURCE(j0 + kNr, n - j0 - kNr < kNr ? n - j0 - kNr : kNr,
                             p0, kc);
      else if (kn > 0)
        stripB = PW_B_SOURCE(0, n < kNr ? n : kNr, p0 + kc, kn);
      pw_lines stripA = pw_no_lines();
      if (s > 0)
        stripA = pw_share(nextA, s - 1, strips - 1);
      for (int64_t q = 0, i0 = 0; q < panels; ++q) {
        int mr = PW_PANEL_ROWS(q);
        float *panel = ap + i0 * kc;
        Prefetch fetch;
        fetch.b = pw_share(stripB, q, panels);
        /* The first strip packs A's panels: a transposed A's in its tile,
         * another here; it prefetches the next panel's source. */
        const float *asrc = NULL;
        fetch.a = pw_no_lines();
        if (s == 0) {
          if (ars == 1)
            asrc = a + i0 + p0 * acs;
          else
            pack(a + i0 * ars + p0 * acs, acs, ars, kc, mr, panel, mr);
          if (q + 1 < panels)
            fetch.a = PW_A_SOURCE(i0 + mr, PW_PANEL_ROWS(q + 1), p0, kc);
        } else {
          fetch.a = pw_share(stripA, q, panels);
        }
        fetch.aTwice = fetch.a.end - fetch.a.next > kc;
        /* The next tile of what the tiles write (C, or the parameter):
         * below this one, or the first of the next strip. */
        int64_t nextRows = q + 1 < panels ? PW_PANEL_ROWS(q + 1) : 0;
        int64_t nextI = i0 + mr, nextJ = j0;
        if (q + 1 == panels && s + 1 < strips) {
          nextRows = PW_PANEL_ROWS(0);
          nextI = 0;
          nextJ = j0 + kNr;
        }
        fetch.c = direct
                      ? pw_region(param + nextI * ps + nextJ, nextRows, kNr, ps)
                      : pw_region(c + nextI * ldc + nextJ, nextRows, kNr, ldc);
        float *out = c + i0 * ldc + j0;
        if (direct) {
          float t[kMr * kNr] __attribute__((aligned(64)));
          anyTile(mr, kc, panel, asrc, acs, bp,
                  tilePacks && q == 0 ? bsrc : NULL, brs, 0.0f, t, kNr, &fetch);
          updateTile(direct, t, mr, nc, blockBeta, out, ldc,
                     param + i0 * ps + j0, ps);
        } else if (nc == kNr) {
          /* The tile's mask (a forward's output, in L3 by now) reaches L2
           * while the tile computes. */
          if (blockEp && blockEp->mask)
            pw_fetch_all(pw_region(blockEp->mask + i0 * blockEp->maskRs + j0,
                                   mr, kNr, blockEp->maskRs));
          anyTile(mr, kc, panel, asrc, acs, bp,
                  tilePacks && q == 0 ? bsrc : NULL, brs, blockBeta, out, ldc,
                  &fetch);
          if (blockEp)
            /* Right after the stores, while the tile is in L1. */
            pw_epilogue_rows_avx512(blockEp, out, ldc, mr, kNr, i0, j0);
        } else {
          /* A narrow last strip: the tile lands in a buffer first. */
          float edge[kMr * kNr] __attribute__((aligned(64)));
          anyTile(mr, kc, panel, asrc, acs, bp, NULL, 0, 0.0f, edge, kNr,
                  &fetch);
          for (int r = 0; r < mr; ++r)
            for (int j = 0; j < nc; ++j) {
              float *o = out + r * ldc + j;
              float x = edge[r * kNr + j];
              x = blockBeta == 0.0f ? x : blockBeta * *o + x;
              *o = blockEp ? pw_epilogue_at(blockEp, x, i0 + r, j0 + j) : x;
            }
        }
        i0 += mr;
      }
    }
  }
#undef PW_PANEL_ROWS
#undef PW_A_SOURCE
#undef PW_B_SOURCE
}

int pw_packed_gemm_enabled(void) { return pw_small_gemm_enabled(); }

/* Measured on an Intel Xeon with AVX-512 (bench/small-gemm, every layout of
 * A and B, docs/bench.md): 1.0-1.13x OpenBLAS 0.3.21's speed from 64 to 512
 * rows with n and k of 128 or more; slower on fewer rows or a shorter n or
 * k (the packing is spread over too little work), on a last strip narrower
 * than 32 columns (it goes through a buffer), and past 512 rows, where A's
 * block no longer sits in the L2 cache with the rest. */
int pw_packed_gemm_takes(int64_t m, int64_t n, int64_t k, int bTransposed,
                         int aTransposed) {
  (void)bTransposed, (void)aTransposed;
  return m >= 64 && m <= 512 && n >= 128 && n % kNr == 0 && k >= 128;
}

int pw_packed_gemm_any_shape(int64_t m, int64_t n, int64_t k, const float *a,
                             int aTransposed, int64_t lda, const float *b,
                             int bTransposed, int64_t ldb, float beta,
                             const pw_epilogue *ep, float *c, int64_t ldc) {
  if (!__builtin_cpu_supports("avx512f"))
    return 0;
  if (m <= 0 || n <= 0)
    return 1;
  /* The few-row kernel's clock (GemmScratch.h). */
  pw_gemm_count_product(m, n, k);
  int64_t kc = k < kKc ? k : kKc;
  /* The A panels, then the B strip on the next 64-byte boundary. */
  float *ap = pw_gemm_scratch((size_t)(m * kc + kc * kNr + 16));
  if (!ap)
    return 0;
  float *bp = ap + (m * kc + 15) / 16 * 16;
  if (k <= 0) {
    /* No terms: C = beta * C (beta 0 writes zeros). */
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    if (ep)
      pw_epilogue_apply(ep, c, m, n, ldc, 1);
    return 1;
  }
  /* An update whose gradient nothing reads afterwards runs on the tiles'
   * values when one block of k makes them whole; any other goes over C
   * after the product. The tiles load 16 biases or mask values at a time:
   * a strided one is applied after. */
  pw_fused_update *direct =
      ep && ep->update && ep->update->grad_dead && k <= kKc ? ep->update : NULL;
  int tileEp = ep && !ep->update && pw_epilogue_unit_columns(ep);
  packedGemm(m, n, k, a, aTransposed ? 1 : lda, aTransposed ? lda : 1, b,
             bTransposed ? 1 : ldb, bTransposed ? ldb : 1, beta,
             tileEp ? ep : NULL, c, ldc, ap, bp, direct,
             direct ? ep->param : NULL, direct ? ep->paramRs : 0);
  if (direct)
    direct->grad_left = 1;
  else if (ep && !tileEp)
    pw_epilogue_apply(ep, c, m, n, ldc, 1);
  return 1;
}

#else /* not x86-64 with GCC or Clang */

int pw_packed_gemm_enabled(void) { return 0; }

int pw_packed_gemm_takes(int64_t m, int64_t n, int64_t k, int bTransposed,
                         int aTransposed) {
  (void)m, (void)n, (void)k, (void)bTransposed, (void)aTransposed;
  return 0;
}

int pw_packed_gemm_any_shape(int64_t m, int64_t n, int64_t k, const float *a,
                             int aTransposed, int64_t lda, const float *b,
                             int bTransposed, int64_t ldb, float beta,
                             const pw_epilogue *ep, float *c, int64_t ldc) {
  (void)m, (void)n, (void)k, (void)a, (void)aTransposed, (void)lda, (void)b;
  (void)bTransposed, (void)ldb, (void)beta, (void)ep, (void)c, (void)ldc;
  return 0;
}

#endif

/* The rule, then the kernel (off without AVX-512). */
int pw_packed_gemm(int64_t m, int64_t n, int64_t k, const float *a,
                   int aTransposed, int64_t lda, const float *b,
                   int bTransposed, int64_t ldb, float beta,
                   const pw_epilogue *ep, float *c, int64_t ldc,
                   int blasThreads) {
  if (blasThreads != 1 || !pw_packed_gemm_enabled() ||
      !pw_packed_gemm_takes(m, n, k, bTransposed, aTransposed))
    return 0;
  return pw_packed_gemm_any_shape(m, n, k, a, aTransposed, lda, b, bTransposed,
                                  ldb, beta, ep, c, ldc);
}
