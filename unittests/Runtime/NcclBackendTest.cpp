//===- NcclBackendTest.cpp - The NCCL backend's order and bookkeeping -----===//
//
// Part of the pipewave project.
//
// The backend over a fake libpipewave_nccl that records what it is asked
// to issue: posted transfers reach NCCL strictly in action-list order,
// grouped, step after step, whatever the posting order. The real library
// is loaded where it was built (it cannot run without a GPU).
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/NcclBackend.h"

#include "TestUtil.h"

#include <cstring>
#include <map>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// What the fake library saw and answers.
struct Fake {
  int size = 2;
  std::vector<std::vector<pw_nccl_op>> issued;
  std::vector<std::vector<int32_t>> splits;
  /// pw_nccl_test's answer per token (default 0: pending).
  std::map<int64_t, int> status;
  std::string peerBytes = "peer";
  int gathers = 0;
  bool aborted = false, destroyed = false;
};
Fake *fake = nullptr;

pw_nccl *handle() { return reinterpret_cast<pw_nccl *>(fake); }

NcclApi fakeApi() {
  NcclApi api = {};
  api.split = [](pw_nccl *, const int32_t *group, int32_t n, char *,
                 size_t) -> int {
    fake->splits.emplace_back(group, group + n);
    bool member = false;
    for (int32_t i = 0; i < n; ++i)
      member |= group[i] == 0;
    return member ? static_cast<int>(fake->splits.size()) + 9 : -1;
  };
  api.issue = [](pw_nccl *, const pw_nccl_op *ops, int32_t n, int64_t *token,
                 char *, size_t) -> int {
    fake->issued.emplace_back(ops, ops + n);
    *token = static_cast<int64_t>(fake->issued.size() - 1);
    return 0;
  };
  api.test = [](pw_nccl *, int64_t token, char *err, size_t errlen) -> int {
    int status = fake->status[token];
    if (status < 0)
      std::snprintf(err, errlen, "unhandled system error (peer gone)");
    return status;
  };
  // A world of two equal ranks: a sum doubles, min and max keep.
  api.hostAllreduce = [](pw_nccl *, void *data, size_t count, int32_t dtype,
                         int32_t reduce, char *, size_t) -> int {
    if (reduce == PW_NCCL_SUM && dtype == PW_F64)
      for (size_t i = 0; i < count; ++i)
        static_cast<double *>(data)[i] *= 2;
    if (reduce == PW_NCCL_SUM && dtype == PW_I32)
      for (size_t i = 0; i < count; ++i)
        static_cast<int32_t *>(data)[i] *= 2;
    return 0;
  };
  // Rank 1 contributes `peerBytes`: gather() first exchanges the sizes,
  // then the bytes padded to the largest.
  api.hostAllgather = [](pw_nccl *, const void *mine, size_t bytes, void *all,
                         char *, size_t) -> int {
    auto *out = static_cast<char *>(all);
    std::memcpy(out, mine, bytes);
    std::memset(out + bytes, 0, bytes);
    if (fake->gathers++ % 2 == 0) {
      int64_t peer = static_cast<int64_t>(fake->peerBytes.size());
      std::memcpy(out + bytes, &peer, sizeof(peer));
    } else {
      std::memcpy(out + bytes, fake->peerBytes.data(),
                  std::min(bytes, fake->peerBytes.size()));
    }
    return 0;
  };
  api.abort = [](pw_nccl *) { fake->aborted = true; };
  api.destroy = [](pw_nccl *) { fake->destroyed = true; };
  return api;
}

pw_action act(int32_t kind, int peer = -1, int64_t tag = 0) {
  pw_action a = {};
  a.kind = kind;
  a.peer = peer;
  a.tag = tag;
  a.microbatch = -1;
  return a;
}

/// Rank 0 of 2: recv t1 | F | send t2, recv t3 | F | send t4 | all-reduce
/// {0, 1} | optimizer.
struct Program {
  std::vector<pw_action> actions = {
      act(PW_ACT_RECV, 1, 1), act(PW_ACT_FORWARD),  act(PW_ACT_SEND, 1, 2),
      act(PW_ACT_RECV, 1, 3), act(PW_ACT_FORWARD),  act(PW_ACT_SEND, 1, 4),
      act(PW_ACT_ALLREDUCE),  act(PW_ACT_OPTIMIZER)};
  std::vector<int32_t> groupRanks = {0, 1};
  pw_rank_program programs[2] = {};
  pw_model model = {};

  Program() {
    actions[6].group_begin = 0;
    actions[6].group_size = 2;
    programs[0].num_actions = static_cast<int32_t>(actions.size());
    programs[0].actions = actions.data();
    model.num_ranks = 2;
    model.ranks = programs;
    model.group_ranks = groupRanks.data();
  }
};

void *fakeEvent(Device &, EventId event) {
  return reinterpret_cast<void *>(static_cast<intptr_t>(1000 + event));
}

struct Harness {
  Fake state;
  Program program;
  std::unique_ptr<Device> device = createHostDevice();
  std::unique_ptr<Backend> backend;
  char buffers[8][16] = {};

  Harness() {
    fake = &state;
    backend = createNcclBackendOver(fakeApi(), handle(), 0, 2, program.model,
                                    nullptr, fakeEvent);
  }
  ~Harness() {
    backend.reset();
    fake = nullptr;
  }
  RequestId send(int64_t tag) {
    return backend->isendAfter(*device, static_cast<EventId>(tag), buffers[tag],
                               16, 1, tag);
  }
  RequestId recv(int64_t tag) {
    return backend->irecvAfter(*device, static_cast<EventId>(tag), buffers[tag],
                               16, 1, tag);
  }
  /// The issued groups as text: "R1 | S2 R3 | S4 | A".
  std::string issued() const {
    std::string text;
    for (const auto &group : state.issued) {
      text += text.empty() ? "" : " | ";
      for (size_t i = 0; i < group.size(); ++i) {
        const pw_nccl_op &op = group[i];
        text += i ? " " : "";
        if (op.kind == PW_NCCL_ALLREDUCE) {
          text += "A" + std::to_string(op.communicator);
          continue;
        }
        text += op.kind == PW_NCCL_SEND ? "S" : "R";
        text += std::to_string(
            (static_cast<const char *>(op.data) - &buffers[0][0]) / 16);
      }
    }
    return text;
  }
};

} // namespace

TEST(NcclBackendTest, IssuesInActionOrderWhateverThePostingOrder) {
  Harness h;
  EXPECT_EQ(h.backend->name(), "nccl");
  h.backend->createGroups({{0, 1}});
  EXPECT_EQ(h.state.splits, (std::vector<std::vector<int32_t>>{{0, 1}}));
  // The executor posts the second receive first: nothing may go out.
  RequestId r3 = h.recv(3);
  EXPECT_EQ(h.issued(), "");
  EXPECT_FALSE(h.backend->test(r3));
  RequestId r1 = h.recv(1);
  EXPECT_EQ(h.issued(), "R1");
  // Send t2 completes the group {send t2, recv t3}: one group, in order.
  RequestId s2 = h.send(2);
  EXPECT_EQ(h.issued(), "R1 | S2 R3");
  // The next step's first receive, posted early, waits for this step.
  RequestId next = h.recv(1);
  EXPECT_EQ(h.issued(), "R1 | S2 R3");
  h.send(4);
  float grads[4] = {};
  RequestId all = h.backend->iallreduceAfter(*h.device, 7, grads, 4, PW_F32,
                                             ReduceOp::Sum, {0, 1});
  EXPECT_EQ(h.issued(), "R1 | S2 R3 | S4 | A10 | R1");
  // Operations carry their buffer, size, peer and the device event.
  const pw_nccl_op &send = h.state.issued[1][0];
  EXPECT_EQ(send.peer, 1);
  EXPECT_EQ(send.bytes, 16u);
  EXPECT_EQ(send.ready, fakeEvent(*h.device, 2));
  const pw_nccl_op &reduce = h.state.issued[3][0];
  EXPECT_EQ(reduce.data, grads);
  EXPECT_EQ(reduce.count, 4u);
  EXPECT_EQ(reduce.dtype, PW_F32);
  EXPECT_EQ(reduce.ready, fakeEvent(*h.device, 7));
  // Completion follows each group's token.
  EXPECT_FALSE(h.backend->test(r1));
  h.state.status[0] = 1;
  EXPECT_TRUE(h.backend->test(r1));
  h.state.status[1] = 1;
  EXPECT_TRUE(h.backend->test(r3));
  EXPECT_TRUE(h.backend->test(s2));
  h.state.status[3] = -1;
  EXPECT_EQ(PW_ERROR_OF(h.backend->test(all)),
            "NCCL: unhandled system error (peer gone)");
  EXPECT_FALSE(h.backend->test(next));
}

TEST(NcclBackendTest, HostCollectives) {
  Harness h;
  double loss = 1.5;
  h.backend->wait(h.backend->iallreduce(&loss, 1, PW_F64, ReduceOp::Sum, {}),
                  "loss");
  EXPECT_EQ(loss, 3.0);
  h.backend->barrier("barrier");
  EXPECT_TRUE(h.backend->agree(true));
  h.state.peerBytes = "the other rank's events";
  std::vector<std::string> all = h.backend->gather("mine", 0);
  EXPECT_EQ(all, (std::vector<std::string>{"mine", "the other rank's events"}));
  EXPECT_TRUE(h.state.issued.empty()); // Nothing went through the queue.
}

TEST(NcclBackendTest, Errors) {
  Harness h;
  char byte = 0;
  EXPECT_EQ(PW_ERROR_OF(h.backend->isend(&byte, 1, 1, 2)),
            "internal error: the NCCL backend moves device memory only "
            "(isendAfter)");
  EXPECT_EQ(PW_ERROR_OF(h.backend->isendAfter(*h.device, 0, &byte, 1, 1, 9)),
            "internal error: the action list has no send to rank 1 with tag 9");
  EXPECT_EQ(PW_ERROR_OF(h.backend->isendAfter(*h.device, 0, &byte, 1, 2, 2)),
            "peer rank 2 is outside the 2 ranks");
  float f = 0;
  EXPECT_EQ(PW_ERROR_OF(h.backend->iallreduceAfter(*h.device, 0, &f, 1, PW_F32,
                                                   ReduceOp::Sum, {0, 1})),
            "internal error: all-reduce over a group createGroups() did not "
            "create or that does not hold rank 0");
  int8_t small = 0;
  EXPECT_EQ(
      PW_ERROR_OF(h.backend->iallreduce(&small, 1, PW_I8, ReduceOp::Sum, {})),
      "all-reduce of unsupported dtype i8");
  // The default event resolver refuses a device without CUDA handles.
  EXPECT_EQ(PW_ERROR_OF(cudaEventOfDevice(*h.device, 0)),
            "the NCCL backend needs the CUDA device of a binary compiled "
            "with --target cuda, not the "
            "'host' device");
}

TEST(NcclBackendTest, AbortEndsTheProcessWithTheMessage) {
  Harness h;
  EXPECT_EXIT(h.backend->abort("a peer died", 3), testing::ExitedWithCode(3),
              "pipewave: rank 0: a peer died");
}

TEST(NcclBackendTest, DestroysTheTransport) {
  Harness h;
  h.backend.reset();
  EXPECT_TRUE(h.state.destroyed);
}

TEST(NcclBackendTest, MissingLibraryIsAClearError) {
  std::string error = PW_ERROR_OF(loadNcclApi("libpipewave_nccl_missing.so"));
  EXPECT_EQ(error.rfind("the NCCL backend needs 'libpipewave_nccl_missing.so' "
                        "(built with the CUDA toolkit and NCCL; put its "
                        "directory, and NCCL's, on LD_LIBRARY_PATH): ",
                        0),
            0u)
      << error;
}

#ifdef PW_NCCL_LIBRARY
TEST(NcclBackendTest, TheBuiltLibraryLoadsWithoutAGpu) {
  NcclApi api = loadNcclApi(PW_NCCL_LIBRARY);
  EXPECT_EQ(api.abiVersion(), PW_NCCL_ABI_VERSION);
  // Without a GPU, joining a world of one fails with a message, not a
  // crash; with one, it works.
  unsigned char id[PW_NCCL_ID_BYTES] = {0};
  char err[512] = {0};
  ASSERT_EQ(api.uniqueId(id, err, sizeof(err)), 0) << err;
  if (pw_nccl *nccl = api.create(id, 0, 1, 0, 5.0, err, sizeof(err)))
    api.destroy(nccl);
  else
    EXPECT_EQ(std::string(err).rfind("rank 0: ", 0), 0u) << err;
}
#endif
