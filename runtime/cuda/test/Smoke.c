/*===- Smoke.c - Links and loads the CUDA launch layer without a GPU -----===*\
|*                                                                          *|
|* Part of the pipewave project.                                            *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#include "pipewave-cuda/launch.h"

#include <stdio.h>

int main(void) {
  int count = pw_cuda_device_count();
  if (count < 0) {
    fprintf(stderr, "negative device count %d\n", count);
    return 1;
  }
  printf("pipewave-cuda: %d device(s)\n", count);
  /* Nothing to free: a null pointer is ignored without a CUDA call. */
  pw_cuda_free(0, 0);
  return 0;
}
