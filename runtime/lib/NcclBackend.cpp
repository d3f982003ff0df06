//===- NcclBackend.cpp - Ranks on GPUs through NCCL -----------------------===//
//
// Part of the pipewave project.
//
// The Backend over libpipewave_nccl (see NcclBackend.h): the queue that
// issues posted transfers in CommOrder's order, request bookkeeping, host
// collectives. The bootstrap is NcclBootstrap.cpp.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/NcclBackend.h"
#include "pipewave-runtime/CommOrder.h"
#include "pipewave-runtime/CudaDeviceAccess.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <unistd.h>

namespace pipewave::runtime {

namespace {

/// One group of the order, for one step (pass): its operations as they are
/// posted, and once issued, the token of its completion.
struct Group {
  std::vector<pw_nccl_op> ops;
  std::vector<bool> posted;
  size_t numPosted = 0;
  bool issued = false;
  bool done = false;
  int64_t token = -1;
};

class NcclBackend final : public Backend {
public:
  NcclBackend(const NcclApi &api, pw_nccl *nccl, int rank, int size,
              const pw_model &model, std::unique_ptr<Backend> bootstrap,
              NcclEventResolver events)
      : api(api), nccl(nccl), myRank(rank), mySize(size), model(model),
        bootstrap(std::move(bootstrap)), events(std::move(events)) {}

  ~NcclBackend() override {
    api.destroy(nccl);
    bootstrap.reset();
  }

  std::string name() const override { return "nccl"; }
  int rank() const override { return myRank; }
  int size() const override { return mySize; }

  RequestId isend(const void *, size_t, int, int64_t) override {
    throw Error("internal error: the NCCL backend moves device memory only "
                "(isendAfter)");
  }
  RequestId irecv(void *, size_t, int, int64_t) override {
    throw Error("internal error: the NCCL backend moves device memory only "
                "(irecvAfter)");
  }

  RequestId isendAfter(Device &device, EventId ready, const void *data,
                       size_t bytes, int peer, int64_t tag) override {
    pw_nccl_op op = {};
    op.kind = PW_NCCL_SEND;
    op.peer = checkPeer(peer);
    op.data = const_cast<void *>(data);
    op.bytes = bytes;
    op.ready = events(device, ready);
    return post(order().find(CommKind::Send, peer, tag), op);
  }

  RequestId irecvAfter(Device &device, EventId ready, void *data, size_t bytes,
                       int peer, int64_t tag) override {
    pw_nccl_op op = {};
    op.kind = PW_NCCL_RECV;
    op.peer = checkPeer(peer);
    op.data = data;
    op.bytes = bytes;
    op.ready = events(device, ready);
    return post(order().find(CommKind::Recv, peer, tag), op);
  }

  RequestId iallreduceAfter(Device &device, EventId ready, void *data,
                            size_t count, int32_t dtype, ReduceOp op,
                            const std::vector<int> &group) override {
    if (op != ReduceOp::Sum)
      throw Error("internal error: the NCCL backend sums device buffers only");
    checkDType(dtype);
    auto communicator = communicators.find(group);
    if (communicator == communicators.end())
      throw Error("internal error: all-reduce over a group createGroups() "
                  "did not create or that does not hold rank " +
                  std::to_string(myRank));
    pw_nccl_op nop = {};
    nop.kind = PW_NCCL_ALLREDUCE;
    nop.data = data;
    nop.count = count;
    nop.dtype = dtype;
    nop.communicator = communicator->second;
    nop.ready = events(device, ready);
    int64_t n = allReducesPosted[group]++;
    int perStep = allReducesPerStep(group);
    return post(order().findAllReduce(group, static_cast<int>(n % perStep)),
                nop);
  }

  void createGroups(const std::vector<std::vector<int>> &groups) override {
    char err[512] = {0};
    for (const std::vector<int> &group : groups) {
      std::vector<int32_t> ranks(group.begin(), group.end());
      int index =
          api.split(nccl, ranks.data(), static_cast<int32_t>(ranks.size()), err,
                    sizeof(err));
      if (index == -2)
        throw Error(std::string("NCCL: ") + err);
      if (index >= 0 && !communicators.count(group))
        communicators[group] = index;
    }
  }

  RequestId iallreduce(void *data, size_t count, int32_t dtype, ReduceOp op,
                       const std::vector<int> &group) override {
    checkDType(dtype);
    if (!group.empty() && static_cast<int>(group.size()) != mySize)
      throw Error("internal error: the NCCL backend reduces host memory over "
                  "all ranks only");
    int32_t reduce = op == ReduceOp::Sum   ? PW_NCCL_SUM
                     : op == ReduceOp::Min ? PW_NCCL_MIN
                                           : PW_NCCL_MAX;
    char err[512] = {0};
    if (api.hostAllreduce(nccl, data, count, dtype, reduce, err, sizeof(err)))
      throw Error(std::string("NCCL: ") + err);
    return completed();
  }

  RequestId ibarrier() override {
    int32_t token = 0;
    return iallreduce(&token, 1, PW_I32, ReduceOp::Sum, {});
  }

  std::vector<std::string> gather(const std::string &bytes, int root) override {
    checkPeer(root);
    // Every rank's size, then every rank's bytes padded to the largest.
    std::vector<int64_t> sizes(static_cast<size_t>(mySize));
    int64_t mine = static_cast<int64_t>(bytes.size());
    char err[512] = {0};
    if (api.hostAllgather(nccl, &mine, sizeof(mine), sizes.data(), err,
                          sizeof(err)))
      throw Error(std::string("NCCL: ") + err);
    size_t widest = 1;
    for (int64_t size : sizes)
      widest = std::max(widest, static_cast<size_t>(size));
    std::string padded = bytes;
    padded.resize(widest);
    std::string all(widest * sizes.size(), '\0');
    if (api.hostAllgather(nccl, padded.data(), widest, all.data(), err,
                          sizeof(err)))
      throw Error(std::string("NCCL: ") + err);
    if (myRank != root)
      return {};
    std::vector<std::string> result;
    for (size_t r = 0; r < sizes.size(); ++r)
      result.push_back(all.substr(r * widest, static_cast<size_t>(sizes[r])));
    return result;
  }

  bool test(RequestId request) override {
    if (request < 0 || static_cast<size_t>(request) >= requests.size() ||
        !requests[request])
      throw Error("internal error: test() of an unknown request");
    std::shared_ptr<Group> &group = requests[request];
    if (!group->done && group->issued) {
      char err[512] = {0};
      int status = api.test(nccl, group->token, err, sizeof(err));
      if (status < 0)
        throw Error(std::string("NCCL: ") + err);
      group->done = status == 1;
    }
    if (!group->done)
      return false;
    group.reset();
    freeIds.push_back(request);
    return true;
  }

  [[noreturn]] void abort(const std::string &message, int exitCode) override {
    api.abort(nccl);
    if (bootstrap)
      bootstrap->abort(message, exitCode); // Prints; ends the MPI job.
    std::fflush(stdout);
    std::fprintf(stderr, "pipewave: rank %d: %s\n", myRank, message.c_str());
    std::fflush(stderr);
    _exit(exitCode);
  }

private:
  NcclApi api;
  pw_nccl *nccl;
  int myRank, mySize;
  const pw_model &model;
  std::unique_ptr<Backend> bootstrap;
  NcclEventResolver events;
  std::unique_ptr<CommOrder> plan;
  /// Per (group, op) of the order: how many steps posted it so far.
  std::vector<std::vector<int64_t>> postedSteps;
  /// Groups posted but not issued, by (step, group index).
  std::map<std::pair<int64_t, int>, std::shared_ptr<Group>> waiting;
  /// The next group to issue.
  int64_t cursorStep = 0;
  int cursorGroup = 0;
  std::map<std::vector<int>, int> communicators;
  std::map<std::vector<int>, int64_t> allReducesPosted;
  std::vector<std::shared_ptr<Group>> requests;
  std::vector<RequestId> freeIds;

  const CommOrder &order() {
    if (!plan) {
      plan = std::make_unique<CommOrder>(planCommOrder(model, myRank));
      for (const CommGroup &group : plan->groups)
        postedSteps.emplace_back(group.ops.size(), 0);
    }
    return *plan;
  }

  int allReducesPerStep(const std::vector<int> &group) {
    int count = 0;
    for (const CommGroup &g : order().groups)
      for (const CommOp &op : g.ops)
        count += op.kind == CommKind::AllReduce && op.group == group;
    return count ? count : 1;
  }

  int checkPeer(int peer) const {
    if (peer < 0 || peer >= mySize)
      throw Error("peer rank " + std::to_string(peer) + " is outside the " +
                  std::to_string(mySize) + " ranks");
    return peer;
  }

  static void checkDType(int32_t dtype) {
    if (dtype != PW_F32 && dtype != PW_F64 && dtype != PW_I32 &&
        dtype != PW_I64)
      throw Error("all-reduce of unsupported dtype " + dtypeName(dtype));
  }

  RequestId add(std::shared_ptr<Group> group) {
    if (!freeIds.empty()) {
      RequestId id = freeIds.back();
      freeIds.pop_back();
      requests[id] = std::move(group);
      return id;
    }
    requests.push_back(std::move(group));
    return static_cast<RequestId>(requests.size() - 1);
  }

  RequestId completed() {
    auto group = std::make_shared<Group>();
    group->issued = group->done = true;
    return add(group);
  }

  /// Queues `op` at `slot` of its step and issues what is due.
  RequestId post(CommSlot slot, const pw_nccl_op &op) {
    int64_t step = postedSteps[slot.group][slot.op]++;
    std::shared_ptr<Group> &group = waiting[{step, slot.group}];
    if (!group) {
      group = std::make_shared<Group>();
      size_t size = plan->groups[slot.group].ops.size();
      group->ops.resize(size);
      group->posted.assign(size, false);
    }
    group->ops[slot.op] = op;
    group->posted[slot.op] = true;
    ++group->numPosted;
    RequestId id = add(group);
    issueDue();
    return id;
  }

  /// Issues complete groups at the cursor, in order.
  void issueDue() {
    for (;;) {
      auto it = waiting.find({cursorStep, cursorGroup});
      if (it == waiting.end() || it->second->numPosted < it->second->ops.size())
        return;
      Group &group = *it->second;
      char err[512] = {0};
      if (api.issue(nccl, group.ops.data(),
                    static_cast<int32_t>(group.ops.size()), &group.token, err,
                    sizeof(err)))
        throw Error(std::string("NCCL: ") + err);
      group.issued = true;
      waiting.erase(it);
      if (++cursorGroup == static_cast<int>(plan->groups.size())) {
        cursorGroup = 0;
        ++cursorStep;
      }
    }
  }
};

} // namespace

void *cudaEventOfDevice(Device &device, EventId event) {
  auto *cuda = dynamic_cast<CudaDeviceAccess *>(&device);
  if (!cuda)
    throw Error("the NCCL backend needs the CUDA device of a binary compiled "
                "with --target cuda, not "
                "the '" +
                    device.name() + "' device",
                ExitUsage);
  return cuda->cudaEventOf(event);
}

std::unique_ptr<Backend>
createNcclBackendOver(const NcclApi &api, pw_nccl *nccl, int rank, int size,
                      const pw_model &model, std::unique_ptr<Backend> bootstrap,
                      NcclEventResolver events) {
  return std::make_unique<NcclBackend>(api, nccl, rank, size, model,
                                       std::move(bootstrap), std::move(events));
}

} // namespace pipewave::runtime
