//===- NcclBackend.h - Ranks on GPUs through NCCL ---------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The NCCL backend (PW_BACKEND=nccl): one process per GPU, messages as
// ncclSend/ncclRecv and gradient all-reduces as ncclAllReduce on a
// communication stream ordered by CUDA events, host collectives (the
// driver's agreement, losses, barriers, trace gathering) through NCCL too.
//
// The CUDA and NCCL calls live in libpipewave_nccl (C ABI:
// pipewave-cuda/nccl_backend.h), found at run time; this side keeps the
// order and the bookkeeping and is tested on the CPU with a fake library:
//
//  * Issue order: NCCL matches point-to-point operations by issue order,
//    not by tag, and the executor posts receives early. Posted operations
//    wait in a queue and are issued strictly in CommOrder's order (the
//    action list's; sched-verify's rendezvous proof makes it deadlock-free,
//    see CommOrder.h), a group once every operation of it was posted, step
//    after step. No receive is ever issued ahead of its turn.
//  * Completion: a request completes when its group's CUDA event has
//    (pw_nccl_test), so device work issued after wait() sees the data.
//  * Failures: wait()'s watchdog (--timeout) ends a wait on a dead or hung
//    peer; abort() aborts the communicators (the other ranks' NCCL work
//    then fails, and their watchdogs, or the library's, end them) and the
//    process (MPI_Abort of the job when MPI bootstrapped it). The library's
//    watchdog thread polls ncclCommGetAsyncError and aborts on an error.
//  * Bootstrap: under an MPI launcher the unique id goes from rank 0 to the
//    others over MPI; otherwise (torchrun-style) over the TCP rendezvous at
//    MASTER_ADDR:MASTER_PORT (TcpRendezvous.h). Each process uses GPU
//    LOCAL_RANK (modulo the visible GPUs).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_NCCLBACKEND_H
#define PIPEWAVE_RUNTIME_NCCLBACKEND_H

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/model.h"

#include "pipewave-cuda/nccl_backend.h"

#include <functional>
#include <memory>
#include <string>

namespace pipewave::runtime {

/// The functions of libpipewave_nccl (fakes in tests).
struct NcclApi {
  int (*abiVersion)();
  int (*uniqueId)(unsigned char *, char *, size_t);
  pw_nccl *(*create)(const unsigned char *, int, int, int, double, char *,
                     size_t);
  int (*split)(pw_nccl *, const int32_t *, int32_t, char *, size_t);
  int (*issue)(pw_nccl *, const pw_nccl_op *, int32_t, int64_t *, char *,
               size_t);
  int (*test)(pw_nccl *, int64_t, char *, size_t);
  int (*hostAllreduce)(pw_nccl *, void *, size_t, int32_t, int32_t, char *,
                       size_t);
  int (*hostAllgather)(pw_nccl *, const void *, size_t, void *, char *, size_t);
  void (*abort)(pw_nccl *);
  void (*destroy)(pw_nccl *);
};

/// libpipewave_nccl's functions: from the process if it is loaded already,
/// else dlopen(`library`). Throws Error (ExitUsage) saying what is missing.
NcclApi loadNcclApi(const std::string &library = "libpipewave_nccl.so");

/// The cudaEvent_t of `event` of `device` (as void *). The default asks the
/// device's CudaDeviceAccess and throws Error for another device.
using NcclEventResolver = std::function<void *(Device &, EventId)>;
void *cudaEventOfDevice(Device &device, EventId event);

/// The backend of rank `rank` of `size` over an initialised transport
/// `nccl` (owned: destroyed with the backend), issuing in the order of
/// `model`'s action list of `rank`. `bootstrap` (may be null) is kept alive
/// until then and ends the job on abort (the MPI backend).
std::unique_ptr<Backend>
createNcclBackendOver(const NcclApi &api, pw_nccl *nccl, int rank, int size,
                      const pw_model &model,
                      std::unique_ptr<Backend> bootstrap = nullptr,
                      NcclEventResolver events = cudaEventOfDevice);

/// PW_BACKEND=nccl: loads the library, bootstraps the world communicator
/// (see above; `timeoutSeconds` bounds the rendezvous and NCCL's waits, 0:
/// none) and returns the backend.
std::unique_ptr<Backend> createNcclBackend(const pw_model &model, int *argc,
                                           char ***argv, double timeoutSeconds);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_NCCLBACKEND_H
