/*===- nccl_backend.h - C ABI of libpipewave_nccl ------------------*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * libpipewave_nccl is the NCCL transport of the runtime's NCCL backend
 * (runtime/lib/NcclBackend.cpp). It is a shared library with this plain C
 * interface, found at run time (dlsym, else dlopen), so that the CPU
 * runtime links no CUDA or NCCL library. It does what needs CUDA and NCCL;
 * the order of operations, the bootstrap and the bookkeeping are the
 * runtime's.
 *
 * One pw_nccl is one rank's world communicator plus the communicators split
 * from it, a communication stream on the rank's GPU, an event per pending
 * group, staging memory for host collectives, and a watchdog thread that
 * polls ncclCommGetAsyncError and aborts every communicator on an error.
 * Communicators are non-blocking (config.blocking = 0), so that every wait
 * has a deadline and can be aborted.
 *
 * Every function returns 0 (or a documented value) on success; on failure
 * it writes a one-line message into `err` (`errlen` bytes, NUL-terminated).
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_CUDA_NCCL_BACKEND_H
#define PIPEWAVE_CUDA_NCCL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PW_NCCL_ABI_VERSION 1
#define PW_NCCL_ID_BYTES 128

typedef struct pw_nccl pw_nccl;

typedef enum pw_nccl_kind {
  PW_NCCL_SEND = 0,
  PW_NCCL_RECV = 1,
  PW_NCCL_ALLREDUCE = 2
} pw_nccl_kind;

/* Reductions (as the runtime's ReduceOp). */
typedef enum pw_nccl_reduce {
  PW_NCCL_SUM = 0,
  PW_NCCL_MIN = 1,
  PW_NCCL_MAX = 2
} pw_nccl_reduce;

/* One operation of a group. Send/receive: `bytes` bytes at `data`, with
 * `peer` (a world rank). All-reduce (sum, in place): `count` elements of
 * `dtype` (a pw_dtype: f32, f64, i32, i64) on split communicator
 * `communicator` (pw_nccl_split's result). `ready`: a cudaEvent_t the
 * communication stream waits for before the group, or NULL. */
typedef struct pw_nccl_op {
  int32_t kind; /* pw_nccl_kind */
  int32_t peer;
  void *data;
  size_t bytes;
  size_t count;
  int32_t dtype;
  int32_t communicator;
  void *ready;
} pw_nccl_op;

/* PW_NCCL_ABI_VERSION of the library. */
int pw_nccl_abi_version(void);

/* A new NCCL unique id (rank 0 calls it and hands it to the others). */
int pw_nccl_unique_id(unsigned char id[PW_NCCL_ID_BYTES], char *err,
                      size_t errlen);

/* Joins the world communicator of `id` as `rank` of `size` on CUDA device
 * `device` modulo the visible devices (cudaSetDevice, also for the
 * caller's thread). Waits at most `timeout_s` seconds for the other ranks.
 * NULL on failure. */
pw_nccl *pw_nccl_create(const unsigned char id[PW_NCCL_ID_BYTES], int rank,
                        int size, int device, double timeout_s, char *err,
                        size_t errlen);

/* Collective over all ranks, called by every rank with the same groups in
 * the same order: splits a communicator for `group` (sorted world ranks);
 * returns its index (>= 0) on a member, -1 on a rank outside it, -2 on
 * failure. */
int pw_nccl_split(pw_nccl *nccl, const int32_t *group, int32_t group_size,
                  char *err, size_t errlen);

/* Issues `n` operations as one group (ncclGroupStart/End) on the
 * communication stream, after the stream waited for each `ready` event,
 * and returns in `token` a handle of its completion. */
int pw_nccl_issue(pw_nccl *nccl, const pw_nccl_op *ops, int32_t n,
                  int64_t *token, char *err, size_t errlen);

/* 1 when the group of `token` has completed on the device (the token is
 * then released), 0 while it has not, -1 on an error (an NCCL error the
 * watchdog saw, a CUDA error). */
int pw_nccl_test(pw_nccl *nccl, int64_t token, char *err, size_t errlen);

/* Blocking collectives of host memory over the world communicator, through
 * device staging memory; each gives up after the create timeout. */
int pw_nccl_host_allreduce(pw_nccl *nccl, void *data, size_t count,
                           int32_t dtype, int32_t reduce, char *err,
                           size_t errlen);
/* `all` receives every rank's `bytes` bytes, in rank order. */
int pw_nccl_host_allgather(pw_nccl *nccl, const void *mine, size_t bytes,
                           void *all, char *err, size_t errlen);

/* Aborts every communicator (unblocks the other ranks' NCCL work with an
 * error); the handle must then only be destroyed. */
void pw_nccl_abort(pw_nccl *nccl);
void pw_nccl_destroy(pw_nccl *nccl);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PIPEWAVE_CUDA_NCCL_BACKEND_H */
