/*===- Launch.c - Module loading, launches and memory for stage code -----===*\
|*                                                                          *|
|* Part of the pipewave project.                                            *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#include "pipewave-cuda/launch.h"

#include "Check.h"

#include <cuda_runtime_api.h>

/* Returns the object in `*slot`, creating it with `make` and publishing it
 * with a compare-and-swap when the slot is still null. A thread that loses
 * the race releases its own object with `drop`. */
static void *cached(void **slot, void *(*make)(const void *),
                    void (*drop)(void *), const void *arg) {
  void *value = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (value)
    return value;
  void *fresh = make(arg);
  void *expected = 0;
  if (__atomic_compare_exchange_n(slot, &expected, fresh, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    return fresh;
  if (drop)
    drop(fresh);
  return expected;
}

static void *loadLibrary(const void *image) {
  cudaLibrary_t library = 0;
  PW_CUDA_CHECK(cudaLibraryLoadData(&library, image, 0, 0, 0, 0, 0, 0));
  return (void *)library;
}

static void unloadLibrary(void *library) {
  PW_CUDA_CHECK(cudaLibraryUnload((cudaLibrary_t)library));
}

struct KernelQuery {
  cudaLibrary_t library;
  const char *name;
};

static void *getKernel(const void *arg) {
  const struct KernelQuery *query = (const struct KernelQuery *)arg;
  cudaKernel_t kernel = 0;
  PW_CUDA_CHECK(cudaLibraryGetKernel(&kernel, query->library, query->name));
  return (void *)kernel;
}

void pw_cuda_launch(void **library, void **kernel, const void *image,
                    const char *name, uint32_t grid, uint32_t block,
                    uint32_t smem, void **args, void *stream) {
  struct KernelQuery query;
  query.library =
      (cudaLibrary_t)cached(library, loadLibrary, unloadLibrary, image);
  query.name = name;
  /* Kernel handles belong to their library: nothing to release. */
  void *fn = cached(kernel, getKernel, 0, &query);
  dim3 gridDim = {grid, 1, 1};
  dim3 blockDim = {block, 1, 1};
  PW_CUDA_CHECK(cudaLaunchKernel(fn, gridDim, blockDim, args, smem,
                                 (cudaStream_t)stream));
}

void *pw_cuda_global(void **library, const void *image, const char *name) {
  cudaLibrary_t lib =
      (cudaLibrary_t)cached(library, loadLibrary, unloadLibrary, image);
  void *ptr = 0;
  size_t size = 0;
  PW_CUDA_CHECK(cudaLibraryGetGlobal(&ptr, &size, lib, name));
  return ptr;
}

void *pw_cuda_alloc(int64_t bytes, void *stream) {
  void *ptr = 0;
  if (bytes > 0)
    PW_CUDA_CHECK(cudaMallocAsync(&ptr, (size_t)bytes, (cudaStream_t)stream));
  return ptr;
}

void pw_cuda_free(void *ptr, void *stream) {
  if (ptr)
    PW_CUDA_CHECK(cudaFreeAsync(ptr, (cudaStream_t)stream));
}

int pw_cuda_device_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); /* clear the sticky-free error state */
    return 0;
  }
  return count;
}
