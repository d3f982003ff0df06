//===- MpiBackend.cpp - MPI backend ---------------------------------------===//
//
// Part of the pipewave project.
//
// Point-to-point messages use MPI_Isend/MPI_Irecv on a duplicate of
// MPI_COMM_WORLD reserved for the action lists' tags; the runtime's own
// control traffic (agreement, trace gathering) uses a second duplicate, so
// it can never match a schedule message. Every communicator gets an error
// handler that prints the MPI error with the rank and aborts the job.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace pipewave::runtime {

namespace {

int worldRank = -1;

void onMpiError(MPI_Comm *, int *code, ...) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  MPI_Error_string(*code, text, &length);
  std::fflush(stdout);
  std::fprintf(stderr, "pipewave: rank %d: MPI error: %s\n", worldRank, text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, ExitFailure);
}

class MpiBackend final : public Backend {
public:
  MpiBackend(int *argc, char ***argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      if (MPI_Init(argc, argv) != MPI_SUCCESS)
        throw Error("MPI_Init failed");
      ownsMpi = true;
    }
    MPI_Comm_create_errhandler(onMpiError, &errorHandler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, errorHandler);
    MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
    MPI_Comm_size(MPI_COMM_WORLD, &mySize);
    worldRank = myRank;
    MPI_Comm_dup(MPI_COMM_WORLD, &dataComm);
    MPI_Comm_dup(MPI_COMM_WORLD, &controlComm);
    void *value = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
    tagUpperBound = found ? *static_cast<int *>(value) : 32767;
    MPI_Type_contiguous(static_cast<int>(kBufferAlignment), MPI_BYTE,
                        &blockType);
    MPI_Type_commit(&blockType);
  }

  ~MpiBackend() override {
    for (auto &[group, comm] : groupComms)
      MPI_Comm_free(&comm);
    MPI_Type_free(&blockType);
    MPI_Comm_free(&dataComm);
    MPI_Comm_free(&controlComm);
    MPI_Errhandler_free(&errorHandler);
    if (ownsMpi)
      MPI_Finalize();
  }

  std::string name() const override { return "mpi"; }
  int rank() const override { return myRank; }
  int size() const override { return mySize; }

  RequestId isend(const void *data, size_t bytes, int peer,
                  int64_t tag) override {
    auto [count, type] = countOf(bytes);
    RequestId id = newRequest();
    MPI_Isend(data, count, type, checkPeer(peer), checkTag(tag), dataComm,
              &requests[id]);
    return id;
  }

  RequestId irecv(void *data, size_t bytes, int peer, int64_t tag) override {
    auto [count, type] = countOf(bytes);
    RequestId id = newRequest();
    MPI_Irecv(data, count, type, checkPeer(peer), checkTag(tag), dataComm,
              &requests[id]);
    return id;
  }

  bool test(RequestId request) override {
    if (request < 0 || static_cast<size_t>(request) >= requests.size() ||
        requests[request] == MPI_REQUEST_NULL)
      throw Error("internal error: test() of an unknown request");
    int done = 0;
    MPI_Status status;
    MPI_Test(&requests[request], &done, &status);
    if (!done)
      return false;
    requests[request] = MPI_REQUEST_NULL;
    freeIds.push_back(request);
    return true;
  }

  RequestId iallreduce(void *data, size_t count, int32_t dtype, ReduceOp op,
                       const std::vector<int> &group) override {
    MPI_Datatype type;
    switch (dtype) {
    case PW_F32:
      type = MPI_FLOAT;
      break;
    case PW_F64:
      type = MPI_DOUBLE;
      break;
    case PW_I32:
      type = MPI_INT32_T;
      break;
    case PW_I64:
      type = MPI_INT64_T;
      break;
    default:
      throw Error("all-reduce of unsupported dtype " + dtypeName(dtype));
    }
    if (count > static_cast<size_t>(INT_MAX))
      throw Error("all-reduce of " + std::to_string(count) +
                  " elements is too large for one MPI call");
    MPI_Op mpiOp = op == ReduceOp::Sum   ? MPI_SUM
                   : op == ReduceOp::Min ? MPI_MIN
                                         : MPI_MAX;
    MPI_Comm comm = group.empty() ? controlComm : commOf(group);
    RequestId id = newRequest();
    MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), type, mpiOp,
                   comm, &requests[id]);
    return id;
  }

  void createGroups(const std::vector<std::vector<int>> &groups) override {
    for (const std::vector<int> &group : groups) {
      for (int member : group)
        checkPeer(member);
      bool member =
          std::find(group.begin(), group.end(), myRank) != group.end();
      // Collective over all ranks; the key keeps the group's rank order.
      MPI_Comm comm = MPI_COMM_NULL;
      MPI_Comm_split(dataComm, member ? 0 : MPI_UNDEFINED, myRank, &comm);
      if (!member)
        continue;
      if (groupComms.count(group)) { // Created before: keep the first one.
        MPI_Comm_free(&comm);
        continue;
      }
      MPI_Comm_set_errhandler(comm, errorHandler);
      groupComms[group] = comm;
    }
  }

  RequestId ibarrier() override {
    RequestId id = newRequest();
    MPI_Ibarrier(controlComm, &requests[id]);
    return id;
  }

  std::vector<std::string> gather(const std::string &bytes, int root) override {
    checkPeer(root);
    if (bytes.size() > static_cast<size_t>(INT_MAX))
      throw Error("gather of more than 2 GiB");
    int mine = static_cast<int>(bytes.size());
    std::vector<int> sizes(myRank == root ? mySize : 0);
    RequestId id = newRequest();
    MPI_Igather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, controlComm,
                &requests[id]);
    wait(id, "a gather on rank " + std::to_string(root));
    std::vector<int> displacements(sizes.size());
    std::string all;
    if (myRank == root) {
      long long total = 0;
      for (int r = 0; r < mySize; ++r) {
        displacements[r] = static_cast<int>(total);
        total += sizes[r];
        if (total > INT_MAX)
          throw Error("gather of more than 2 GiB");
      }
      all.resize(static_cast<size_t>(total));
    }
    id = newRequest();
    MPI_Igatherv(bytes.data(), mine, MPI_BYTE, all.data(), sizes.data(),
                 displacements.data(), MPI_BYTE, root, controlComm,
                 &requests[id]);
    wait(id, "a gather on rank " + std::to_string(root));
    std::vector<std::string> result;
    for (int r = 0; r < static_cast<int>(sizes.size()); ++r)
      result.push_back(all.substr(displacements[r], sizes[r]));
    return result;
  }

  [[noreturn]] void abort(const std::string &message, int exitCode) override {
    std::fflush(stdout);
    std::fprintf(stderr, "pipewave: rank %d: %s\n", myRank, message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exitCode);
    _Exit(exitCode);
  }

private:
  bool ownsMpi = false;
  int myRank = 0;
  int mySize = 1;
  int tagUpperBound = 32767;
  MPI_Errhandler errorHandler = MPI_ERRHANDLER_NULL;
  MPI_Comm dataComm = MPI_COMM_NULL;
  MPI_Comm controlComm = MPI_COMM_NULL;
  MPI_Datatype blockType = MPI_DATATYPE_NULL;
  std::vector<MPI_Request> requests;
  std::vector<RequestId> freeIds;
  std::map<std::vector<int>, MPI_Comm> groupComms;

  RequestId newRequest() {
    if (!freeIds.empty()) {
      RequestId id = freeIds.back();
      freeIds.pop_back();
      return id;
    }
    requests.push_back(MPI_REQUEST_NULL);
    return static_cast<RequestId>(requests.size() - 1);
  }

  int checkPeer(int peer) const {
    if (peer < 0 || peer >= mySize)
      throw Error("peer rank " + std::to_string(peer) + " is outside the " +
                  std::to_string(mySize) + " ranks");
    return peer;
  }

  int checkTag(int64_t tag) const {
    if (tag < 0 || tag > tagUpperBound)
      throw Error("message tag " + std::to_string(tag) +
                  " is outside MPI's range [0, " +
                  std::to_string(tagUpperBound) + "]");
    return static_cast<int>(tag);
  }

  /// Counts above INT_MAX bytes travel as 64-byte blocks (message buffers are
  /// padded to 64 bytes).
  std::pair<int, MPI_Datatype> countOf(size_t bytes) const {
    if (bytes <= static_cast<size_t>(INT_MAX))
      return {static_cast<int>(bytes), MPI_BYTE};
    if (bytes % kBufferAlignment == 0 &&
        bytes / kBufferAlignment <= static_cast<size_t>(INT_MAX))
      return {static_cast<int>(bytes / kBufferAlignment), blockType};
    throw Error("message of " + std::to_string(bytes) +
                " bytes is too large for one MPI call");
  }

  MPI_Comm commOf(const std::vector<int> &group) {
    auto it = groupComms.find(group);
    if (it != groupComms.end())
      return it->second;
    MPI_Group world, sub;
    MPI_Comm_group(dataComm, &world);
    MPI_Group_incl(world, static_cast<int>(group.size()), group.data(), &sub);
    MPI_Comm comm;
    MPI_Comm_create_group(dataComm, sub, 0, &comm);
    MPI_Group_free(&sub);
    MPI_Group_free(&world);
    MPI_Comm_set_errhandler(comm, errorHandler);
    groupComms[group] = comm;
    return comm;
  }
};

} // namespace

bool haveMpiBackend() { return true; }

std::unique_ptr<Backend> createMpiBackend(int *argc, char ***argv) {
  return std::make_unique<MpiBackend>(argc, argv);
}

} // namespace pipewave::runtime
