/*===- SmallGemm.c - AVX-512 GEMM for few-row products ---------------------===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * A pipeline's matmuls have few rows: a microbatch of 32 rows against a
 * 512x512 weight. OpenBLAS packs both operands on every call; with 32 rows
 * the packing of the weight is spread over little work, and its sgemm runs
 * at 55-65% of the core's peak where a 256-row product runs at 85%. This
 * kernel packs nothing that grows with the weight:
 *
 *  - B with unit column stride (C = A * B, A in any layout): every 12x32
 *    tile of C accumulates in 24 AVX-512 registers, broadcasting one element
 *    of A per row and loading one row of B per step of k; B is read in
 *    place, a strip of 32 columns and 256 steps of k at a time.
 *  - B with unit row stride and A with unit column stride (C = A * B^T with
 *    both stored row-major, a linear layer's input gradient): the same tile
 *    computes C^T = B^T * A^T with A^T packed (m*k floats) and C^T written to
 *    a scratch buffer that is then added into C.
 *  - In a pipeline stage the weights do not fit in L2 together, so each
 *    product reads its weight from the last-level cache; read a strip at a
 *    time (rows 2 KiB apart), it crosses a page every two rows, where the
 *    hardware prefetcher stops. The tiles of a strip therefore fetch the
 *    next strip into L2 between them, and with a transposed B the tiles of
 *    the first strip each fetch the next panel of the weight
 *    (GemmPrefetch.h): 0.73-0.84 of the time of a 32x512x512 forward,
 *    0.87-0.97 of its input gradient, with eight weights in turn
 *    (docs/bench.md); not a weight the thread read so recently that it is
 *    still in L2 (GemmScratch.h).
 *
 * The scratch buffers are per thread and only grow, so a pipeline's steady
 * state allocates nothing. pw_small_gemm returns 0 for a product it does not
 * take (no AVX-512, more than one OpenBLAS thread, a shape where OpenBLAS is
 * faster, PIPEWAVE_GEMM=blas in the environment); the caller then calls
 * OpenBLAS.
 *
 *===----------------------------------------------------------------------===*/

#include "SmallGemm.h"
#include "GemmScratch.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include "Avx512Transpose.h"
#include "GemmPrefetch.h"

#include <immintrin.h>

#define PW_AVX512 __attribute__((target("avx512f")))
enum { kMr = 12, kNr = 32, kKc = 256 };

/* What one tile prefetches: `rows` rows of the next B strip (`lines`
 * cache lines each from `row`, rows `stride` bytes apart), one every two
 * steps or (`twice`) two, and lines of the next A panel. */
typedef struct Prefetch {
  const char *row;
  int64_t stride, rows;
  int lines, twice;
  pw_lines a;
} Prefetch;

/* Step p of a tile: acc[r][:] += A(r, p) * B(p, :). */
static inline __attribute__((always_inline)) PW_AVX512 void
step(int mr, int nv, __mmask16 last, int64_t p, const float *a, int64_t ars,
     int64_t acs, const float *b, int64_t ldb, __m512 acc[kMr][2]) {
  __m512 bv[2];
#pragma GCC unroll 2
  for (int v = 0; v < nv; ++v)
    bv[v] = v == nv - 1 ? _mm512_maskz_loadu_ps(last, b + p * ldb + 16 * v)
                        : _mm512_loadu_ps(b + p * ldb + 16 * v);
#pragma GCC unroll 12
  for (int r = 0; r < mr; ++r) {
    /* An explicit broadcast: folded into each FMA as {1to16} it would cost
     * a load per FMA and bind the loop to the load ports. */
    __m512 av;
    __asm__("vbroadcastss %1, %0" : "=v"(av) : "m"(a[r * ars + p * acs]));
#pragma GCC unroll 2
    for (int v = 0; v < nv; ++v)
      acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
  }
}

/* The `lines` cache lines of a row from `row`, into L2. */
static inline __attribute__((always_inline)) void fetchRow(const char *row,
                                                           int lines) {
  _mm_prefetch(row, _MM_HINT_T1);
  if (lines > 1)
    _mm_prefetch(row + 64, _MM_HINT_T1);
  if (lines > 2)
    _mm_prefetch(row + 128, _MM_HINT_T1);
}

/* One kMr x kNr tile (mr <= kMr rows, nv 16-wide vectors, the last one
 * masked): C = beta * C + sum_p A(r, p) * B(p, :). Called with constant mr
 * and nv so that the accumulators live in registers. The prefetches go
 * once every two steps: a step is near the front end's width with them. */
static inline __attribute__((always_inline)) PW_AVX512 void
tile(int mr, int nv, __mmask16 last, int64_t k, const float *a, int64_t ars,
     int64_t acs, const float *b, int64_t ldb, float beta, float *c,
     int64_t ldc, const Prefetch *fetch) {
  const char *fb = fetch->row;
  int64_t fbRows = fetch->rows, fbStride = fetch->stride;
  int lines = fetch->lines, twice = fetch->twice;
  pw_line_cursor fa = pw_cursor(fetch->a);
  __m512 acc[kMr][2];
#pragma GCC unroll 12
  for (int r = 0; r < mr; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < nv; ++v)
      acc[r][v] = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p + 2 <= k; p += 2) {
    /* A row of the next B strip (two where this tile's share is more than
     * half its steps) and two lines of the next A panel. */
    if (fbRows > 0) {
      fetchRow(fb, lines);
      fb += fbStride;
      --fbRows;
      if (twice && fbRows > 0) {
        fetchRow(fb, lines);
        fb += fbStride;
        --fbRows;
      }
    }
    pw_fetch_read(&fa);
    pw_fetch_read(&fa);
    step(mr, nv, last, p, a, ars, acs, b, ldb, acc);
    step(mr, nv, last, p + 1, a, ars, acs, b, ldb, acc);
  }
  if (p < k)
    step(mr, nv, last, p, a, ars, acs, b, ldb, acc);
  __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
  for (int r = 0; r < mr; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < nv; ++v) {
      float *out = c + r * ldc + 16 * v;
      __mmask16 mask = v == nv - 1 ? last : (__mmask16)0xffff;
      __m512 x = acc[r][v];
      if (beta != 0.0f)
        x = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(mask, out), x);
      _mm512_mask_storeu_ps(out, mask, x);
    }
}

#define PW_TILE_CASE(R)                                                        \
  case R:                                                                      \
    if (nv == 2)                                                               \
      tile(R, 2, last, k, a, ars, acs, b, ldb, beta, c, ldc, fetch);           \
    else                                                                       \
      tile(R, 1, last, k, a, ars, acs, b, ldb, beta, c, ldc, fetch);           \
    break;

static PW_AVX512 void anyTile(int mr, int nv, __mmask16 last, int64_t k,
                              const float *a, int64_t ars, int64_t acs,
                              const float *b, int64_t ldb, float beta, float *c,
                              int64_t ldc, const Prefetch *fetch) {
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
  default:
    break;
  }
}

/* C = beta * C + A * B for B with unit column stride. Each strip's tiles
 * prefetch the next strip of B (in this block of k, or the first of the
 * next) between them, and the first strip's tiles each the next panel of
 * A, which the later strips find in L2. */
static PW_AVX512 void broadcastGemm(int64_t m, int64_t n, int64_t k,
                                    const float *a, int64_t ars, int64_t acs,
                                    const float *b, int64_t ldb, float beta,
                                    const pw_epilogue *ep, float *c,
                                    int64_t ldc, int cold) {
  int64_t tiles = (m + kMr - 1) / kMr;
  /* Operands of 512 KiB or more are fetched ahead unless the weight is
   * known to be in L2 (`cold` 0): smaller ones mostly stay in a 2 MiB L2
   * from an earlier product, and fetching what is there costs a product of
   * a few rows up to 12% (docs/bench.md). */
  int largeB = cold && k * n >= 128 * 1024;
  int largeA = cold && m * (k < kKc ? k : kKc) >= 128 * 1024;
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    int64_t kc = k - p0 < kKc ? k - p0 : kKc;
    int64_t kn = k - p0 - kc < kKc ? k - p0 - kc : kKc; /* the next block */
    float blockBeta = p0 == 0 ? beta : 1.0f;
    const pw_epilogue *blockEp = p0 + kc == k ? ep : NULL;
    for (int64_t j0 = 0; j0 < n; j0 += kNr) {
      int64_t nc = n - j0 < kNr ? n - j0 : kNr;
      int nv = nc > 16 ? 2 : 1;
      int rem = (int)(nc - 16 * (nv - 1));
      __mmask16 last = (__mmask16)(rem == 16 ? 0xffffu : (1u << rem) - 1u);
      /* The next strip: in this block, or the first of the next. */
      pw_lines stripB = pw_no_lines();
      if (largeB && j0 + kNr < n)
        stripB = pw_region(b + p0 * ldb + j0 + kNr, kc,
                           n - j0 - kNr < kNr ? n - j0 - kNr : kNr, ldb);
      else if (largeB && kn > 0)
        stripB = pw_region(b + (p0 + kc) * ldb, kn, n < kNr ? n : kNr, ldb);
      int64_t stripRows = stripB.end / stripB.perRow;
      for (int64_t i0 = 0, t = 0; i0 < m; i0 += kMr, ++t) {
        int mr = m - i0 < kMr ? (int)(m - i0) : kMr;
        /* This tile's share of the strip's rows (one a step: a strip has
         * at most kc rows), and in the first strip the next panel of an A
         * too large to stay in L2 from an earlier product. */
        int64_t r0 = stripRows * t / tiles, r1 = stripRows * (t + 1) / tiles;
        Prefetch fetch = {(const char *)(stripB.base + r0 * ldb),
                          ldb * (int64_t)sizeof(float),
                          r1 - r0,
                          (int)stripB.perRow,
                          0,
                          pw_no_lines()};
        fetch.twice = 2 * fetch.rows > kc;
        int64_t i1 = i0 + mr, next = m - i1 < kMr ? m - i1 : kMr;
        if (largeA && j0 == 0 && next > 0)
          fetch.a = acs == 1 ? pw_region(a + i1 * ars + p0, next, kc, ars)
                             : pw_region(a + i1 + p0 * acs, kc, next, acs);
        anyTile(mr, nv, last, kc, a + i0 * ars + p0 * acs, ars, acs,
                b + p0 * ldb + j0, ldb, blockBeta, c + i0 * ldc + j0, ldc,
                &fetch);
        if (blockEp)
          /* Right after the stores, while the tile is in L1. */
          pw_epilogue_rows_avx512(blockEp, c + i0 * ldc + j0, ldc, mr, nc, i0,
                                  j0);
      }
    }
  }
}

/* dst[j * ldd + i] = src[i * lds + j] (beta == 0), or dst = beta * dst +
 * that (beta != 0), for i < rows, j < cols: whole 16x16 blocks in
 * registers, the edges element by element; then ep (NULL: none), on each
 * block of dst as it is stored. */
static PW_AVX512 void transposeInto(const float *src, int64_t lds, int64_t rows,
                                    int64_t cols, float beta,
                                    const pw_epilogue *ep, float *dst,
                                    int64_t ldd) {
  __m512 vbeta = _mm512_set1_ps(beta);
  for (int64_t i0 = 0; i0 < rows; i0 += 16)
    for (int64_t j0 = 0; j0 < cols; j0 += 16) {
      if (i0 + 16 <= rows && j0 + 16 <= cols) {
        __m512 block[16];
        pw_transpose16(src + i0 * lds + j0, lds, 16, block);
        for (int j = 0; j < 16; ++j) {
          float *out = dst + (j0 + j) * ldd + i0;
          __m512 x = block[j];
          if (beta != 0.0f)
            x = _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(out), x);
          _mm512_storeu_ps(out, x);
        }
        if (ep)
          pw_epilogue_rows_avx512(ep, dst + j0 * ldd + i0, ldd, 16, 16, j0, i0);
        continue;
      }
      int64_t i1 = i0 + 16 < rows ? i0 + 16 : rows;
      int64_t j1 = j0 + 16 < cols ? j0 + 16 : cols;
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) {
          float *out = &dst[j * ldd + i];
          *out =
              beta == 0.0f ? src[i * lds + j] : beta * *out + src[i * lds + j];
        }
      if (ep)
        pw_epilogue_rows_avx512(ep, dst + j0 * ldd + i0, ldd, j1 - j0, i1 - i0,
                                j0, i0);
    }
}

/* C = beta * C + A * B^T, A [m,k] and B [n,k] both with unit column stride:
 * T = B * A^T (n x m) by broadcastGemm, then C = beta * C + T^T and ep. */
static PW_AVX512 int transposedGemm(int64_t m, int64_t n, int64_t k,
                                    const float *a, int64_t lda, const float *b,
                                    int64_t ldb, float beta,
                                    const pw_epilogue *ep, float *c,
                                    int64_t ldc, int cold) {
  float *at = pw_gemm_scratch((size_t)(k * m + n * m));
  if (!at)
    return 0;
  float *t = at + k * m;
  transposeInto(a, lda, m, k, 0.0f, NULL, at, m);
  broadcastGemm(n, m, k, b, ldb, 1, at, m, 0.0f, NULL, t, m, cold);
  transposeInto(t, m, n, m, beta, ep, c, ldc);
  return 1;
}

/* Decided once per process; the atomics keep concurrent first calls (stage
 * code on several threads) free of a data race. */
static int enabled(void) {
  static int state = -1; /* -1: not yet decided */
  int known = __atomic_load_n(&state, __ATOMIC_RELAXED);
  if (known >= 0)
    return known;
  const char *env = getenv("PIPEWAVE_GEMM");
  __builtin_cpu_init();
  known =
      __builtin_cpu_supports("avx512f") && !(env && strcmp(env, "blas") == 0);
  __atomic_store_n(&state, known, __ATOMIC_RELAXED);
  return known;
}

int pw_small_gemm_enabled(void) { return enabled(); }

/* Measured on an Intel Xeon with AVX-512 (bench/small-gemm, docs/bench.md):
 * the kernel is at least as fast as OpenBLAS 0.3.21's SkylakeX kernels here
 * and up to 2.4x faster at 8-32 rows; OpenBLAS stays faster for a short k
 * (a weight gradient over a microbatch), for many rows, and for four rows
 * or fewer against a small weight. */

int pw_small_gemm_takes(int64_t m, int64_t n, int64_t k, int bTransposed,
                        int aTransposed) {
  if (k < 64 || n < 32)
    return 0;
  if (!bTransposed)
    return (m >= 8 && m <= 128) || (m >= 4 && m < 8 && n >= 512 && k >= 512);
  if (aTransposed)
    return 0;
  return (m >= 16 && m <= 96 && n >= 128) ||
         (m >= 4 && m < 16 && n >= 256 && k >= 256);
}

int pw_small_gemm(int64_t m, int64_t n, int64_t k, const float *a,
                  int aTransposed, int64_t lda, const float *b, int bTransposed,
                  int64_t ldb, float beta, const pw_epilogue *ep, float *c,
                  int64_t ldc, int blasThreads) {
  if (blasThreads != 1 || !enabled() ||
      !pw_small_gemm_takes(m, n, k, bTransposed, aTransposed))
    return 0;
  /* The tiles load 16 biases or mask values at a time: a strided one is
   * applied after. */
  const pw_epilogue *tileEp = ep && pw_epilogue_unit_columns(ep) ? ep : NULL;
  /* The weight (B) is fetched ahead unless this thread read it so recently
   * that it is still in L2 (a stage of one layer, say). */
  int cold = !pw_gemm_recently_read(b, pw_gemm_count_product(m, n, k));
  if (!bTransposed)
    broadcastGemm(m, n, k, a, aTransposed ? 1 : lda, aTransposed ? lda : 1, b,
                  ldb, beta, tileEp, c, ldc, cold);
  else if (!transposedGemm(m, n, k, a, lda, b, ldb, beta, tileEp, c, ldc, cold))
    return 0;
  if (ep && !tileEp)
    pw_epilogue_apply(ep, c, m, n, ldc, 1);
  return 1;
}

#else /* not x86-64 with GCC or Clang */

int pw_small_gemm_enabled(void) { return 0; }

int pw_small_gemm_takes(int64_t m, int64_t n, int64_t k, int bTransposed,
                        int aTransposed) {
  (void)m, (void)n, (void)k, (void)bTransposed, (void)aTransposed;
  return 0;
}

int pw_small_gemm(int64_t m, int64_t n, int64_t k, const float *a,
                  int aTransposed, int64_t lda, const float *b, int bTransposed,
                  int64_t ldb, float beta, const pw_epilogue *ep, float *c,
                  int64_t ldc, int blasThreads) {
  (void)m, (void)n, (void)k, (void)a, (void)aTransposed, (void)lda, (void)b;
  (void)bTransposed, (void)ldb, (void)beta, (void)ep, (void)c, (void)ldc;
  (void)blasThreads;
  return 0;
}

#endif
