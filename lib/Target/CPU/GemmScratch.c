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
