//===- NcclBootstrap.cpp - Find libpipewave_nccl, join the world ----------===//
//
// Part of the pipewave project.
//
// PW_BACKEND=nccl (see NcclBackend.h). The library is looked up in the
// process first (a CUDA binary may link it), then loaded by name (the
// dynamic loader's search: LD_LIBRARY_PATH, the binary's run path).
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/LaunchEnv.h"
#include "pipewave-runtime/NcclBackend.h"
#include "pipewave-runtime/TcpRendezvous.h"

#include <cstring>
#include <dlfcn.h>

namespace pipewave::runtime {

namespace {

template <typename Function>
void resolve(void *handle, const char *name, Function &function,
             const std::string &library) {
  void *symbol = handle ? dlsym(handle, name) : dlsym(RTLD_DEFAULT, name);
  if (!symbol)
    throw Error("'" + library + "' has no function " + name +
                    " (a library of another pipewave version?)",
                ExitUsage);
  function = reinterpret_cast<Function>(symbol);
}

} // namespace

NcclApi loadNcclApi(const std::string &library) {
  void *handle = nullptr;
  if (!dlsym(RTLD_DEFAULT, "pw_nccl_abi_version")) {
    handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      throw Error("the NCCL backend needs '" + library +
                      "' (built with the CUDA toolkit and NCCL; put its "
                      "directory, and NCCL's, on LD_LIBRARY_PATH): " +
                      (why ? why : "not found"),
                  ExitUsage);
    }
  }
  NcclApi api = {};
  resolve(handle, "pw_nccl_abi_version", api.abiVersion, library);
  if (api.abiVersion() != PW_NCCL_ABI_VERSION)
    throw Error("'" + library + "' has ABI version " +
                    std::to_string(api.abiVersion()) + ", this runtime needs " +
                    std::to_string(PW_NCCL_ABI_VERSION),
                ExitUsage);
  resolve(handle, "pw_nccl_unique_id", api.uniqueId, library);
  resolve(handle, "pw_nccl_create", api.create, library);
  resolve(handle, "pw_nccl_split", api.split, library);
  resolve(handle, "pw_nccl_issue", api.issue, library);
  resolve(handle, "pw_nccl_test", api.test, library);
  resolve(handle, "pw_nccl_host_allreduce", api.hostAllreduce, library);
  resolve(handle, "pw_nccl_host_allgather", api.hostAllgather, library);
  resolve(handle, "pw_nccl_abort", api.abort, library);
  resolve(handle, "pw_nccl_destroy", api.destroy, library);
  return api; // The library stays loaded for the process's lifetime.
}

std::unique_ptr<Backend> createNcclBackend(const pw_model &model, int *argc,
                                           char ***argv,
                                           double timeoutSeconds) {
  NcclApi api = loadNcclApi();
  LaunchEnv launch = launchEnvFromProcess();
  double timeout = timeoutSeconds > 0 ? timeoutSeconds : 1e9;
  unsigned char id[PW_NCCL_ID_BYTES] = {0};
  char err[512] = {0};
  std::unique_ptr<Backend> mpi;
  int rank = 0, size = 1;
  auto newId = [&] {
    if (api.uniqueId(id, err, sizeof(err)))
      throw Error(std::string("NCCL: ") + err);
  };
  if (startedByLauncher() && haveMpiBackend()) {
    // Rank 0's id reaches the others as a sum with their zeros.
    mpi = createMpiBackend(argc, argv);
    mpi->setTimeout(timeoutSeconds);
    rank = mpi->rank();
    size = mpi->size();
    if (rank == 0)
      newId();
    int32_t words[PW_NCCL_ID_BYTES / 4];
    std::memcpy(words, id, sizeof(words));
    mpi->wait(
        mpi->iallreduce(words, PW_NCCL_ID_BYTES / 4, PW_I32, ReduceOp::Sum, {}),
        "the NCCL unique id from rank 0");
    std::memcpy(id, words, sizeof(words));
  } else if (launch.worldSize > 1) {
    if (launch.masterAddr.empty() || launch.masterPort == 0)
      usageError("the NCCL backend without an MPI launcher needs MASTER_ADDR "
                 "and MASTER_PORT (rank 0's host and a free port, as "
                 "torchrun sets them)");
    rank = launch.rank;
    size = launch.worldSize;
    if (rank == 0) {
      TcpRendezvousServer server(launch.masterPort);
      newId();
      server.serve(std::string(reinterpret_cast<char *>(id), sizeof(id)), size,
                   timeout);
    } else {
      std::string bytes = fetchFromRendezvous(
          launch.masterAddr, launch.masterPort, rank, size, timeout);
      if (bytes.size() != sizeof(id))
        throw Error("rank " + std::to_string(rank) + ": rank 0 sent " +
                    std::to_string(bytes.size()) +
                    " bytes for the NCCL unique id, not " +
                    std::to_string(sizeof(id)));
      std::memcpy(id, bytes.data(), sizeof(id));
    }
  } else {
    newId();
  }
  pw_nccl *nccl =
      api.create(id, rank, size, launch.localRank, timeout, err, sizeof(err));
  if (!nccl)
    throw Error(std::string("NCCL: ") + err);
  return createNcclBackendOver(api, nccl, rank, size, model, std::move(mpi));
}

} // namespace pipewave::runtime
