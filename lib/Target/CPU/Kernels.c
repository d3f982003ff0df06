/*===- Kernels.c - Helpers that compiled stage code calls -----------------===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * pipe-matmul-to-blas rewrites f32 matmuls on buffers into calls of these
 * helpers. Every memref operand arrives as the fields of its MLIR memref
 * descriptor (convert-func-to-llvm's expanded calling convention):
 *
 *   float *allocated, float *aligned, int64_t offset,
 *   int64_t size[rank], int64_t stride[rank]
 *
 * They compute C = A * B + beta * C (for every batch b of the batched form)
 * with OpenBLAS cblas_sgemm when each matrix has a unit stride along one of
 * its dimensions (row- or column-major, any leading dimension), and with
 * plain loops otherwise. Batch dimensions of size 1 broadcast. On one
 * OpenBLAS thread with AVX-512, products with few rows go to pipewave's own
 * kernel for them where it is the faster one (SmallGemm.c), and larger ones
 * to its packed kernel (PackedGemm.c).
 *
 * The _update forms also take the parameter whose gradient C is, and run
 * its SGD update when the runtime armed it (FusedUpdate.h).
 *
 * The _bias_clamp forms take the element-wise op after the product that
 * pipe-matmul-to-blas folded into the call (a bias, then clamps: Epilogue.h):
 * the packed kernel applies it as it stores C, the other paths right after
 * the product.
 *
 *===----------------------------------------------------------------------===*/

#include "Kernels.h"
#include "FusedUpdate.h"
#include "GemmScratch.h"
#include "PackedGemm.h"
#include "SmallGemm.h"

#include <cblas.h>
#include <stdint.h>

/* One matrix operand: base pointer, rows x cols, row and column strides. */
typedef struct pw_mat {
  float *data;
  int64_t rows, cols, rs, cs;
} pw_mat;

/* Layout of a matrix for cblas in row-major order: NoTrans with lda = rs when
 * cs == 1, Trans with lda = cs when rs == 1. Returns 0 if neither. */
static int blas_layout(const pw_mat *m, enum CBLAS_TRANSPOSE *trans,
                       int64_t *ld) {
  /* The stride of a unit dimension is irrelevant. */
  int64_t rs = m->rows == 1 ? (m->cols > 1 ? m->cols : 1) : m->rs;
  int64_t cs = m->cols == 1 ? 1 : m->cs;
  if (cs == 1 && rs >= (m->cols > 1 ? m->cols : 1)) {
    *trans = CblasNoTrans;
    *ld = rs;
    return 1;
  }
  if (rs == 1 && cs >= (m->rows > 1 ? m->rows : 1)) {
    *trans = CblasTrans;
    *ld = cs;
    return 1;
  }
  return 0;
}

static void gemm(float beta, const pw_mat *a, const pw_mat *b, pw_mat *c,
                 const pw_epilogue *ep) {
  int64_t m = c->rows, n = c->cols, k = a->cols;
  if (m == 0 || n == 0)
    return;
  enum CBLAS_TRANSPOSE ta, tb, tc;
  int64_t lda, ldb, ldc;
  if (k > 0 && blas_layout(a, &ta, &lda) && blas_layout(b, &tb, &ldb) &&
      blas_layout(c, &tc, &ldc) && tc == CblasNoTrans && m < INT32_MAX &&
      n < INT32_MAX && k < INT32_MAX) {
    int threads = openblas_get_num_threads();
    /* pipewave's kernels apply a bias, clamp or mask to each tile as they
     * store it. An update goes over the whole product after it (in the
     * tiles, with the gradient written too, its traffic slowed the product
     * by about what it saved: docs/bench.md), except in the packed kernel
     * when nothing reads the gradient afterwards: there it runs on each
     * tile's values in place of writing the gradient (PackedGemm.c). */
    if (pw_small_gemm(m, n, k, a->data, ta == CblasTrans, lda, b->data,
                      tb == CblasTrans, ldb, beta,
                      ep && !ep->update ? ep : NULL, c->data, ldc, threads)) {
      if (ep && ep->update)
        pw_epilogue_apply(ep, c->data, m, n, ldc, 1);
      return;
    }
    if (pw_packed_gemm(m, n, k, a->data, ta == CblasTrans, lda, b->data,
                       tb == CblasTrans, ldb, beta, ep, c->data, ldc, threads))
      return;
    /* pipewave's kernels count their own products (GemmScratch.h). */
    pw_gemm_count_product(m, n, k);
    cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, 1.0f, a->data,
                (int)lda, b->data, (int)ldb, beta, c->data, (int)ldc);
    if (ep && (ep->update || !pw_epilogue_apply_avx512(ep, c->data, m, n, ldc)))
      pw_epilogue_apply(ep, c->data, m, n, ldc, 1);
    return;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        acc += a->data[i * a->rs + p * a->cs] * b->data[p * b->rs + j * b->cs];
      float *out = &c->data[i * c->rs + j * c->cs];
      *out = beta == 0.0f ? acc : acc + beta * *out;
    }
  if (ep)
    pw_epilogue_apply(ep, c->data, m, n, c->rs, c->cs);
}

/* pw_sgemm's body: C = beta * C + A * B, then ep (if any). */
static void gemm2d(float beta, float *a, int64_t a_m, int64_t a_k, int64_t a_sm,
                   int64_t a_sk, float *b, int64_t b_n, int64_t b_sk,
                   int64_t b_sn, float *c, int64_t c_m, int64_t c_n,
                   int64_t c_sm, int64_t c_sn, const pw_epilogue *ep) {
  pw_mat ma = {a, a_m, a_k, a_sm, a_sk};
  pw_mat mb = {b, a_k, b_n, b_sk, b_sn};
  pw_mat mc = {c, c_m, c_n, c_sm, c_sn};
  gemm(beta, &ma, &mb, &mc, ep);
}

/* pw_sgemm_batched's body: the product of every batch (a batch dimension
 * of size 1 broadcasts), each then through ep (if any). */
static void gemm3d(float beta, float *a, int64_t a_b, int64_t a_m, int64_t a_k,
                   int64_t a_sb, int64_t a_sm, int64_t a_sk, float *b,
                   int64_t b_b, int64_t b_n, int64_t b_sb, int64_t b_sk,
                   int64_t b_sn, float *c, int64_t c_b, int64_t c_m,
                   int64_t c_n, int64_t c_sb, int64_t c_sm, int64_t c_sn,
                   const pw_epilogue *ep) {
  for (int64_t i = 0; i < c_b; ++i)
    gemm2d(beta, a + (a_b == 1 ? 0 : i * a_sb), a_m, a_k, a_sm, a_sk,
           b + (b_b == 1 ? 0 : i * b_sb), b_n, b_sk, b_sn, c + i * c_sb, c_m,
           c_n, c_sm, c_sn, ep);
}

void pw_sgemm(float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_m,
              int64_t a_k, int64_t a_sm, int64_t a_sk, float *b_alloc, float *b,
              int64_t b_off, int64_t b_k, int64_t b_n, int64_t b_sk,
              int64_t b_sn, float *c_alloc, float *c, int64_t c_off,
              int64_t c_m, int64_t c_n, int64_t c_sm, int64_t c_sn) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)b_k;
  gemm2d(beta, a + a_off, a_m, a_k, a_sm, a_sk, b + b_off, b_n, b_sk, b_sn,
         c + c_off, c_m, c_n, c_sm, c_sn, NULL);
}

void pw_sgemm_batched(float beta, float *a_alloc, float *a, int64_t a_off,
                      int64_t a_b, int64_t a_m, int64_t a_k, int64_t a_sb,
                      int64_t a_sm, int64_t a_sk, float *b_alloc, float *b,
                      int64_t b_off, int64_t b_b, int64_t b_k, int64_t b_n,
                      int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
                      float *c, int64_t c_off, int64_t c_b, int64_t c_m,
                      int64_t c_n, int64_t c_sb, int64_t c_sm, int64_t c_sn) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)b_k;
  gemm3d(beta, a + a_off, a_b, a_m, a_k, a_sb, a_sm, a_sk, b + b_off, b_b, b_n,
         b_sb, b_sk, b_sn, c + c_off, c_b, c_m, c_n, c_sb, c_sm, c_sn, NULL);
}

void pw_sgemm_bias_clamp(float beta, float *a_alloc, float *a, int64_t a_off,
                         int64_t a_m, int64_t a_k, int64_t a_sm, int64_t a_sk,
                         float *b_alloc, float *b, int64_t b_off, int64_t b_k,
                         int64_t b_n, int64_t b_sk, int64_t b_sn,
                         float *c_alloc, float *c, int64_t c_off, int64_t c_m,
                         int64_t c_n, int64_t c_sm, int64_t c_sn,
                         float *bias_alloc, float *bias, int64_t bias_off,
                         int64_t bias_n, int64_t bias_s, float lo, float hi) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)bias_alloc, (void)b_k;
  (void)bias_n;
  pw_epilogue ep = {bias + bias_off, bias_s, lo, hi, NULL, 0, 0, NULL, NULL, 0};
  gemm2d(beta, a + a_off, a_m, a_k, a_sm, a_sk, b + b_off, b_n, b_sk, b_sn,
         c + c_off, c_m, c_n, c_sm, c_sn, &ep);
}

void pw_sgemm_batched_bias_clamp(
    float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_b,
    int64_t a_m, int64_t a_k, int64_t a_sb, int64_t a_sm, int64_t a_sk,
    float *b_alloc, float *b, int64_t b_off, int64_t b_b, int64_t b_k,
    int64_t b_n, int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
    float *c, int64_t c_off, int64_t c_b, int64_t c_m, int64_t c_n,
    int64_t c_sb, int64_t c_sm, int64_t c_sn, float *bias_alloc, float *bias,
    int64_t bias_off, int64_t bias_n, int64_t bias_s, float lo, float hi) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)bias_alloc, (void)b_k;
  (void)bias_n;
  pw_epilogue ep = {bias + bias_off, bias_s, lo, hi, NULL, 0, 0, NULL, NULL, 0};
  gemm3d(beta, a + a_off, a_b, a_m, a_k, a_sb, a_sm, a_sk, b + b_off, b_b, b_n,
         b_sb, b_sk, b_sn, c + c_off, c_b, c_m, c_n, c_sb, c_sm, c_sn, &ep);
}

void pw_sgemm_positive_mask(float beta, float *a_alloc, float *a, int64_t a_off,
                            int64_t a_m, int64_t a_k, int64_t a_sm,
                            int64_t a_sk, float *b_alloc, float *b,
                            int64_t b_off, int64_t b_k, int64_t b_n,
                            int64_t b_sk, int64_t b_sn, float *c_alloc,
                            float *c, int64_t c_off, int64_t c_m, int64_t c_n,
                            int64_t c_sm, int64_t c_sn, float *y_alloc,
                            float *y, int64_t y_off, int64_t y_m, int64_t y_n,
                            int64_t y_sm, int64_t y_sn) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)y_alloc, (void)b_k;
  (void)y_m, (void)y_n;
  pw_epilogue ep = {NULL, 0, 0.0f, 0.0f, y + y_off, y_sm, y_sn, NULL, NULL, 0};
  gemm2d(beta, a + a_off, a_m, a_k, a_sm, a_sk, b + b_off, b_n, b_sk, b_sn,
         c + c_off, c_m, c_n, c_sm, c_sn, &ep);
}

/* The mask is rank 2: a batched product with an epilogue has one batch
 * (lib/Conversion/MatmulEpilogue.cpp), which the mask's rows follow. */
void pw_sgemm_batched_positive_mask(
    float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_b,
    int64_t a_m, int64_t a_k, int64_t a_sb, int64_t a_sm, int64_t a_sk,
    float *b_alloc, float *b, int64_t b_off, int64_t b_b, int64_t b_k,
    int64_t b_n, int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
    float *c, int64_t c_off, int64_t c_b, int64_t c_m, int64_t c_n,
    int64_t c_sb, int64_t c_sm, int64_t c_sn, float *y_alloc, float *y,
    int64_t y_off, int64_t y_m, int64_t y_n, int64_t y_sm, int64_t y_sn) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)y_alloc, (void)b_k;
  (void)y_m, (void)y_n;
  pw_epilogue ep = {NULL, 0, 0.0f, 0.0f, y + y_off, y_sm, y_sn, NULL, NULL, 0};
  gemm3d(beta, a + a_off, a_b, a_m, a_k, a_sb, a_sm, a_sk, b + b_off, b_b, b_n,
         b_sb, b_sk, b_sn, c + c_off, c_b, c_m, c_n, c_sb, c_sm, c_sn, &ep);
}

/* The _update forms (FusedUpdate.h): C is the whole gradient of the
 * parameter P, of the same shape. With an update armed for both, every
 * batch's product updates its part of P as its epilogue. */
static pw_fused_update *armed_update(const float *c, int64_t c_b, int64_t c_m,
                                     int64_t c_n, int64_t c_sb, int64_t c_sm,
                                     int64_t c_sn, const float *p, int64_t p_b,
                                     int64_t p_m, int64_t p_n, int64_t p_sb,
                                     int64_t p_sm, int64_t p_sn) {
  /* Both dense and row-major, of the same shape. */
  int dense = c_sn == 1 && c_sm == c_n && (c_b == 1 || c_sb == c_m * c_n);
  if (!dense || p_b != c_b || p_m != c_m || p_n != c_n || p_sn != 1 ||
      p_sm != c_sm || (c_b > 1 && p_sb != c_sb))
    return NULL;
  return pw_armed_update(c, p, c_b * c_m * c_n);
}

void pw_sgemm_update(float beta, float *a_alloc, float *a, int64_t a_off,
                     int64_t a_m, int64_t a_k, int64_t a_sm, int64_t a_sk,
                     float *b_alloc, float *b, int64_t b_off, int64_t b_k,
                     int64_t b_n, int64_t b_sk, int64_t b_sn, float *c_alloc,
                     float *c, int64_t c_off, int64_t c_m, int64_t c_n,
                     int64_t c_sm, int64_t c_sn, float *p_alloc, float *p,
                     int64_t p_off, int64_t p_m, int64_t p_n, int64_t p_sm,
                     int64_t p_sn) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)p_alloc, (void)b_k;
  pw_fused_update *u = armed_update(c + c_off, 1, c_m, c_n, 0, c_sm, c_sn,
                                    p + p_off, 1, p_m, p_n, 0, p_sm, p_sn);
  pw_epilogue ep = {NULL, 0, 0.0f, 0.0f, NULL, 0, 0, u, p + p_off, p_sm};
  gemm2d(beta, a + a_off, a_m, a_k, a_sm, a_sk, b + b_off, b_n, b_sk, b_sn,
         c + c_off, c_m, c_n, c_sm, c_sn, u ? &ep : NULL);
  if (u)
    u->done = 1;
}

void pw_sgemm_batched_update(
    float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_b,
    int64_t a_m, int64_t a_k, int64_t a_sb, int64_t a_sm, int64_t a_sk,
    float *b_alloc, float *b, int64_t b_off, int64_t b_b, int64_t b_k,
    int64_t b_n, int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
    float *c, int64_t c_off, int64_t c_b, int64_t c_m, int64_t c_n,
    int64_t c_sb, int64_t c_sm, int64_t c_sn, float *p_alloc, float *p,
    int64_t p_off, int64_t p_b, int64_t p_m, int64_t p_n, int64_t p_sb,
    int64_t p_sm, int64_t p_sn) {
  (void)a_alloc, (void)b_alloc, (void)c_alloc, (void)p_alloc, (void)b_k;
  pw_fused_update *u = armed_update(c + c_off, c_b, c_m, c_n, c_sb, c_sm, c_sn,
                                    p + p_off, p_b, p_m, p_n, p_sb, p_sm, p_sn);
  if (!u) {
    gemm3d(beta, a + a_off, a_b, a_m, a_k, a_sb, a_sm, a_sk, b + b_off, b_b,
           b_n, b_sb, b_sk, b_sn, c + c_off, c_b, c_m, c_n, c_sb, c_sm, c_sn,
           NULL);
    return;
  }
  for (int64_t i = 0; i < c_b; ++i) {
    pw_epilogue ep = {NULL, 0, 0.0f, 0.0f, NULL, 0, 0, u, p + p_off + i * p_sb,
                      p_sm};
    gemm2d(beta, a + a_off + (a_b == 1 ? 0 : i * a_sb), a_m, a_k, a_sm, a_sk,
           b + b_off + (b_b == 1 ? 0 : i * b_sb), b_n, b_sk, b_sn,
           c + c_off + i * c_sb, c_m, c_n, c_sm, c_sn, &ep);
  }
  u->done = 1;
}

/* For the runtime's --print-memory report (a weak reference there: a
 * binary without these helpers has no OpenBLAS matmuls): whether products
 * of few rows, and the larger ones of PackedGemm.c, run on pipewave's
 * kernels, which leave them to OpenBLAS when OpenBLAS runs more than one
 * thread. */
int pw_small_gemm_active(void) {
  /* pw_packed_gemm_enabled() is the same switch. */
  return pw_small_gemm_enabled() && openblas_get_num_threads() == 1;
}

/* memref.copy between buffers that are not both contiguous (e.g. the strided
 * slices of a split) lowers to a call of MLIR's runtime helper `memrefCopy`
 * (elsewhere in libmlir_c_runner_utils, which compiled models do not link).
 * Its arguments are unranked memrefs: {rank, pointer to the ranked
 * descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}};
 * sizes, strides and the offset count elements of `elem_size` bytes. */
typedef struct pw_unranked {
  int64_t rank;
  void *descriptor;
} pw_unranked;

typedef struct pw_ranked_head {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} pw_ranked_head;

static void copy_dim(int64_t elem_size, int64_t rank, int64_t dim,
                     const int64_t *sizes, const int64_t *src_strides,
                     const int64_t *dst_strides, const char *src, char *dst) {
  int64_t n = sizes[dim];
  if (dim == rank - 1) {
    int64_t ss = src_strides[dim] * elem_size,
            ds = dst_strides[dim] * elem_size;
    for (int64_t i = 0; i < n; ++i) {
      const char *s = src + i * ss;
      char *d = dst + i * ds;
      for (int64_t b = 0; b < elem_size; ++b)
        d[b] = s[b];
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    copy_dim(elem_size, rank, dim + 1, sizes, src_strides, dst_strides,
             src + i * src_strides[dim] * elem_size,
             dst + i * dst_strides[dim] * elem_size);
}

void memrefCopy(int64_t elem_size, pw_unranked *src_arg, pw_unranked *dst_arg) {
  const pw_ranked_head *src = (const pw_ranked_head *)src_arg->descriptor;
  pw_ranked_head *dst = (pw_ranked_head *)dst_arg->descriptor;
  int64_t rank = src_arg->rank;
  const char *s = src->aligned + src->offset * elem_size;
  char *d = dst->aligned + dst->offset * elem_size;
  if (rank == 0) {
    for (int64_t b = 0; b < elem_size; ++b)
      d[b] = s[b];
    return;
  }
  const int64_t *sizes = src->sizes_and_strides;
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  copy_dim(elem_size, rank, 0, sizes, src->sizes_and_strides + rank,
           dst->sizes_and_strides + rank, s, d);
}
