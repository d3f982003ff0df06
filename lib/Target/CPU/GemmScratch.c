/*===- GemmScratch.c - Per-thread scratch of the GEMM kernels -------------===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*/

#include "GemmScratch.h"

#include <stdlib.h>

static _Thread_local float *scratch;
static _Thread_local size_t scratchFloats;

float *pw_gemm_scratch(size_t floats) {
  if (floats <= scratchFloats)
    return scratch;
  size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
  float *grown = (float *)aligned_alloc(64, bytes);
  if (!grown)
    return NULL;
  free(scratch);
  scratch = grown;
  scratchFloats = bytes / sizeof(float);
  return scratch;
}

static _Thread_local uint64_t traffic;

void pw_gemm_traffic_add(uint64_t bytes) { traffic += bytes; }

uint64_t pw_gemm_count_product(int64_t m, int64_t n, int64_t k) {
  uint64_t bytes = (uint64_t)(m * k + k * n + m * n) * sizeof(float);
  traffic += bytes;
  return bytes;
}

enum { kRecent = 8 };
static _Thread_local struct {
  const void *b;
  uint64_t after; /* the clock at the end of the product that read it */
} recent[kRecent];
static _Thread_local int recentNext;

int pw_gemm_recently_read(const void *b, uint64_t productBytes) {
  uint64_t start = traffic >= productBytes ? traffic - productBytes : 0;
  for (int i = 0; i < kRecent; ++i)
    if (recent[i].b == b) {
      int warm = start - recent[i].after < (1u << 20);
      recent[i].after = traffic;
      return warm;
    }
  recent[recentNext].b = b;
  recent[recentNext].after = traffic;
  recentNext = (recentNext + 1) % kRecent;
  return 0;
}
