/*===- Check.h - Fatal error checks of the CUDA launch layer -------------===*\
|*                                                                          *|
|* Part of the pipewave project.                                            *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_CUDA_CHECK_H
#define PIPEWAVE_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints `what` failed with the CUDA runtime's message and aborts. */
static inline void pwCudaFail(const char *what, cudaError_t err) {
  fprintf(stderr, "pipewave-cuda: %s failed: %s (%s)\n", what,
          cudaGetErrorName(err), cudaGetErrorString(err));
  abort();
}

#define PW_CUDA_CHECK(call)                                                    \
  do {                                                                         \
    cudaError_t pwErr = (call);                                                \
    if (pwErr != cudaSuccess)                                                  \
      pwCudaFail(#call, pwErr);                                                \
  } while (0)

#endif /* PIPEWAVE_CUDA_CHECK_H */
