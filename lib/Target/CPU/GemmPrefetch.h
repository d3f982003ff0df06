/*===- GemmPrefetch.h - Cache lines a GEMM tile fetches ahead ---*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * The AVX-512 GEMM kernels (SmallGemm.c, PackedGemm.c) read operands that
 * come out of the last-level cache: a pipeline stage's weights do not fit in
 * L2 together, and a weight read a strip of columns at a time (a 2 KiB row
 * stride) crosses a 4 KiB page every two rows, where the hardware's stream
 * prefetcher stops. So each tile fetches, a line per step of k, what the
 * tiles after it read: a region of lines, shared out among the tiles that
 * run before it is needed. Include only where __x86_64__ and a
 * GCC-compatible compiler are known.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_GEMMPREFETCH_H
#define PIPEWAVE_TARGET_CPU_GEMMPREFETCH_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define PW_PREFETCH_INLINE static inline __attribute__((always_inline))

/* Cache lines to prefetch, [next, end) of a 2-D region: line i at base +
 * (i / perRow) * stride + (i % perRow) * 16 floats. */
typedef struct pw_lines {
  const float *base;
  int64_t stride, perRow, next, end;
} pw_lines;

/* No lines. */
PW_PREFETCH_INLINE pw_lines pw_no_lines(void) {
  pw_lines l = {NULL, 1, 1, 0, 0};
  return l;
}

/* Lines as a tile walks them: the row at `row`, its line `col`, `left`
 * lines to go; no division per line. */
typedef struct pw_line_cursor {
  const char *row;
  int64_t rowBytes, perRow, col, left;
} pw_line_cursor;

PW_PREFETCH_INLINE pw_line_cursor pw_cursor(pw_lines l) {
  pw_line_cursor c = {(const char *)(l.base + (l.next / l.perRow) * l.stride),
                      l.stride * (int64_t)sizeof(float), l.perRow,
                      l.next % l.perRow, l.end - l.next};
  return c;
}

PW_PREFETCH_INLINE void pw_cursor_advance(pw_line_cursor *c) {
  if (++c->col == c->perRow) {
    c->col = 0;
    c->row += c->rowBytes;
  }
  --c->left;
}

/* The cursor's next line into L2, if any is left. */
PW_PREFETCH_INLINE void pw_fetch_read(pw_line_cursor *c) {
  if (c->left > 0) {
    _mm_prefetch(c->row + c->col * 64, _MM_HINT_T1);
    pw_cursor_advance(c);
  }
}

/* The cursor's next line, for writing, if any is left. */
PW_PREFETCH_INLINE __attribute__((target("prfchw"))) void
pw_fetch_write(pw_line_cursor *c) {
  if (c->left > 0) {
    _mm_prefetch(c->row + c->col * 64, _MM_HINT_ET0);
    pw_cursor_advance(c);
  }
}

/* The lines of a rows x cols block (row stride `stride`) as one region:
 * whole lines from the one holding its first element. */
PW_PREFETCH_INLINE pw_lines pw_region(const float *base, int64_t rows,
                                      int64_t cols, int64_t stride) {
  uintptr_t skew = (uintptr_t)base & 63;
  pw_lines l = {(const float *)((uintptr_t)base - skew), stride,
                (int64_t)((skew + (uintptr_t)cols * sizeof(float) + 63) / 64),
                0, 0};
  l.end = rows * l.perRow;
  return l;
}

/* Every line of `l`, into L2. */
PW_PREFETCH_INLINE void pw_fetch_all(pw_lines l) {
  pw_line_cursor c = pw_cursor(l);
  while (c.left > 0)
    pw_fetch_read(&c);
}

/* Lines [next, end) of `all`, split evenly over `parts`: part `i`. */
PW_PREFETCH_INLINE pw_lines pw_share(pw_lines all, int64_t i, int64_t parts) {
  int64_t total = all.end - all.next, first = all.next;
  all.next = first + total * i / parts;
  all.end = first + total * (i + 1) / parts;
  return all;
}

#endif
