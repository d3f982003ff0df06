//===- LoopbackTest.cpp - Every rank in one process -----------------------===//
//
// Part of the pipewave project.
//
// The loopback backend's matching, collectives and failures. One thread
// drives several ranks where the order of calls matters (a rank's copies
// are issued by its own calls), threads where ranks must run concurrently.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Loopback.h"
#include "pipewave-runtime/Tensor.h"

#include "TestUtil.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <thread>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

struct Job {
  std::shared_ptr<LoopbackHub> hub;
  std::vector<std::unique_ptr<Backend>> ranks;

  explicit Job(int size) : hub(createLoopbackHub(size)) {
    for (int r = 0; r < size; ++r) {
      ranks.push_back(createLoopbackBackend(hub, r));
      ranks.back()->setTimeout(5);
    }
  }
  Backend &operator[](int r) { return *ranks[r]; }
};

/// One rank's device with a compute stream: writes values into device
/// memory after a delay, so a transfer not ordered after it sees poison.
struct RankDevice {
  /// Host copies of what write() uploads, kept until the device is gone.
  std::deque<std::vector<float>> staged;
  std::unique_ptr<Device> device = createAsyncTestDevice(200);
  StreamId compute = device->createStream();
  EventId ready = device->createEvent();

  float *allocate(size_t n) {
    return static_cast<float *>(device->allocate(n * sizeof(float)));
  }
  /// Uploads `values` to `dst` on the compute stream and records `ready`.
  void write(float *dst, const std::vector<float> &values) {
    staged.push_back(values);
    device->copy(compute, dst, staged.back().data(),
                 values.size() * sizeof(float), CopyKind::HostToDevice);
    device->record(ready, compute);
  }
  std::vector<float> read(const float *src, size_t n) {
    std::vector<float> out(n);
    device->copy(compute, out.data(), src, n * sizeof(float),
                 CopyKind::DeviceToHost);
    device->synchronize();
    return out;
  }
};

} // namespace

TEST(LoopbackTest, MatchesByTagInAnyPostingOrder) {
  Job job(2);
  EXPECT_EQ(job[0].name(), "loopback");
  EXPECT_EQ(job[1].rank(), 1);
  EXPECT_EQ(job[1].size(), 2);
  int sent[3] = {10, 20, 30}, got[3] = {0, 0, 0};
  // Receives posted before and after the sends, in another order.
  RequestId r3 = job[1].irecv(&got[2], sizeof(int), 0, 3);
  RequestId s1 = job[0].isend(&sent[0], sizeof(int), 1, 1);
  RequestId s2 = job[0].isend(&sent[1], sizeof(int), 1, 2);
  RequestId s3 = job[0].isend(&sent[2], sizeof(int), 1, 3);
  EXPECT_FALSE(job[0].test(s1));
  RequestId r1 = job[1].irecv(&got[0], sizeof(int), 0, 1);
  RequestId r2 = job[1].irecv(&got[1], sizeof(int), 0, 2);
  for (RequestId id : {s1, s2, s3})
    job[0].wait(id, "send");
  for (RequestId id : {r1, r2, r3})
    job[1].wait(id, "recv");
  EXPECT_EQ(got[0], 10);
  EXPECT_EQ(got[1], 20);
  EXPECT_EQ(got[2], 30);
}

TEST(LoopbackTest, SameTagFromDifferentPeers) {
  Job job(3);
  int a = 1, b = 2, fromA = 0, fromB = 0;
  RequestId rb = job[1].irecv(&fromB, sizeof(int), 2, 7);
  RequestId ra = job[1].irecv(&fromA, sizeof(int), 0, 7);
  RequestId sa = job[0].isend(&a, sizeof(int), 1, 7);
  RequestId sb = job[2].isend(&b, sizeof(int), 1, 7);
  job[1].wait(ra, "a");
  job[1].wait(rb, "b");
  job[0].wait(sa, "a");
  job[2].wait(sb, "b");
  EXPECT_EQ(fromA, 1);
  EXPECT_EQ(fromB, 2);
}

TEST(LoopbackTest, SameKeyMatchesInPostingOrder) {
  Job job(2);
  int first = 1, second = 2, got[2] = {0, 0};
  job[0].isend(&first, sizeof(int), 1, 4);
  job[0].isend(&second, sizeof(int), 1, 4);
  job[1].wait(job[1].irecv(&got[0], sizeof(int), 0, 4), "first");
  job[1].wait(job[1].irecv(&got[1], sizeof(int), 0, 4), "second");
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 2);
}

TEST(LoopbackTest, SizeMismatchFailsBothSides) {
  Job job(2);
  float small[4] = {}, large[8] = {};
  RequestId send = job[0].isend(small, sizeof(small), 1, 5);
  EXPECT_EQ(PW_ERROR_OF(job[1].irecv(large, sizeof(large), 0, 5)),
            "message size mismatch from rank 0 to rank 1 with tag 5: sent 16 "
            "bytes, receiving 32");
  EXPECT_EQ(PW_ERROR_OF(job[0].test(send)),
            "message size mismatch from rank 0 to rank 1 with tag 5: sent 16 "
            "bytes, receiving 32");
}

TEST(LoopbackTest, RejectsPeersOutsideTheJob) {
  Job job(2);
  int value = 0;
  EXPECT_EQ(PW_ERROR_OF(job[0].isend(&value, sizeof(int), 2, 0)),
            "peer rank 2 is outside the 2 ranks");
  EXPECT_EQ(PW_ERROR_OF(job[0].irecv(&value, sizeof(int), -1, 0)),
            "peer rank -1 is outside the 2 ranks");
  EXPECT_EQ(PW_ERROR_OF(createLoopbackBackend(job.hub, 2)),
            "loopback rank 2 is outside the 2 ranks");
  EXPECT_EQ(PW_ERROR_OF(createLoopbackHub(0)),
            "a loopback job needs at least one rank, not 0");
}

TEST(LoopbackTest, DeviceTransfersAreOrderedByEvents) {
  // The sender's data is written late by its device; the receiver's buffer
  // is poisoned device memory: only a copy ordered after the sender's
  // event and completed before test() reports it gives the values.
  Job job(2);
  RankDevice d0, d1;
  const size_t n = 1024;
  float *src = d0.allocate(n), *dst = d1.allocate(n);
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = static_cast<float>(i) * 0.5f;
  d0.write(src, values);
  RequestId send =
      job[0].isendAfter(*d0.device, d0.ready, src, n * sizeof(float), 1, 9);
  RequestId recv =
      job[1].irecvAfter(*d1.device, d1.ready, dst, n * sizeof(float), 0, 9);
  // Matched at the receive; the sender's thread issues the copy.
  EXPECT_FALSE(job[1].test(recv));
  job[0].wait(send, "send");
  job[1].wait(recv, "recv");
  EXPECT_EQ(d1.read(dst, n), values);
}

TEST(LoopbackTest, ConcurrentRanksExchangeInBothDirections) {
  // Two threads, each sending 50 device messages to the other while
  // receiving, receives posted in reverse tag order.
  Job job(2);
  const int messages = 50;
  const size_t n = 64;
  std::atomic<int> failures{0};
  auto body = [&](int rank) {
    RankDevice d;
    int peer = 1 - rank;
    std::vector<float *> in(messages), out(messages);
    std::vector<RequestId> recvs(messages), sends(messages);
    for (int m = messages - 1; m >= 0; --m) {
      in[m] = d.allocate(n);
      recvs[m] = job[rank].irecvAfter(*d.device, d.ready, in[m],
                                      n * sizeof(float), peer, m);
    }
    for (int m = 0; m < messages; ++m) {
      out[m] = d.allocate(n);
      d.write(out[m], std::vector<float>(n, float(rank * 1000 + m)));
      sends[m] = job[rank].isendAfter(*d.device, d.ready, out[m],
                                      n * sizeof(float), peer, m);
    }
    for (int m = 0; m < messages; ++m) {
      job[rank].wait(recvs[m], "recv");
      if (d.read(in[m], n) != std::vector<float>(n, float(peer * 1000 + m)))
        ++failures;
    }
    for (RequestId id : sends)
      job[rank].wait(id, "send");
  };
  std::thread other(body, 1);
  body(0);
  other.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(LoopbackTest, AllReduceOverGroups) {
  // Groups {0, 2} and {1, 3} and every rank; float sums in group order.
  Job job(4);
  float values[4][3] = {{1e8f, 1, 2}, {5, 6, 7}, {1, -3, 4}, {-1e8f, 8, 9}};
  std::vector<RequestId> ids(4);
  for (int r : {2, 0, 1, 3})
    ids[r] = job[r].iallreduce(values[r], 3, PW_F32, ReduceOp::Sum,
                               r % 2 == 0 ? std::vector<int>{0, 2}
                                          : std::vector<int>{1, 3});
  for (int r = 0; r < 4; ++r)
    job[r].wait(ids[r], "sum");
  EXPECT_EQ(values[0][0], 1e8f + 1.0f);
  EXPECT_EQ(values[2][1], -2.0f);
  EXPECT_EQ(values[1][0], 5.0f - 1e8f);
  EXPECT_EQ(values[3][2], 16.0f);

  double maxima[4] = {3, 9, -1, 4};
  int32_t minima[4] = {3, 9, -1, 4};
  std::vector<RequestId> max(4), min(4);
  for (int r = 0; r < 4; ++r) {
    max[r] = job[r].iallreduce(&maxima[r], 1, PW_F64, ReduceOp::Max, {});
    min[r] = job[r].iallreduce(&minima[r], 1, PW_I32, ReduceOp::Min, {});
  }
  for (int r = 0; r < 4; ++r) {
    job[r].wait(max[r], "max");
    job[r].wait(min[r], "min");
    EXPECT_EQ(maxima[r], 9.0);
    EXPECT_EQ(minima[r], -1);
  }
}

TEST(LoopbackTest, DeviceAllReduceSumsInGroupOrder) {
  Job job(3);
  RankDevice d[3];
  const float inputs[3][2] = {{1e8f, 0.5f}, {1, 0.25f}, {-1e8f, 0.125f}};
  float *buffers[3];
  std::vector<RequestId> ids(3);
  for (int r = 0; r < 3; ++r) {
    buffers[r] = d[r].allocate(2);
    d[r].write(buffers[r], {inputs[r][0], inputs[r][1]});
    ids[r] = job[r].iallreduceAfter(*d[r].device, d[r].ready, buffers[r], 2,
                                    PW_F32, ReduceOp::Sum, {});
  }
  for (int r = 0; r < 3; ++r)
    job[r].wait(ids[r], "sum");
  // (1e8 + 1) - 1e8 in float: 0, the sequential sum in rank order.
  float expected0 = (inputs[0][0] + inputs[1][0]) + inputs[2][0];
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(d[r].read(buffers[r], 2),
              (std::vector<float>{expected0, 0.875f}));
  EXPECT_EQ(
      PW_ERROR_OF(job[0].iallreduceAfter(*d[0].device, d[0].ready, buffers[0],
                                         2, PW_F32, ReduceOp::Max, {})),
      "the loopback backend sums device buffers only; the all-reduce "
      "of ranks [0, 1, 2] (2 f32) asks for a minimum or maximum");
}

TEST(LoopbackTest, CollectiveMismatchIsAnError) {
  Job job(2);
  float f = 0;
  double d = 0;
  job[0].iallreduce(&f, 1, PW_F32, ReduceOp::Sum, {});
  EXPECT_EQ(PW_ERROR_OF(job[1].iallreduce(&d, 1, PW_F64, ReduceOp::Sum, {})),
            "collective mismatch: rank 1 started the all-reduce of ranks [0, "
            "1] (1 f64) where rank 0 started the all-reduce of ranks [0, 1] "
            "(1 f32)");
  int8_t byte = 0;
  EXPECT_EQ(PW_ERROR_OF(job[0].iallreduce(&byte, 1, PW_I8, ReduceOp::Sum, {})),
            "all-reduce of unsupported dtype i8");
  EXPECT_EQ(PW_ERROR_OF(job[0].iallreduce(&f, 1, PW_F32, ReduceOp::Sum, {1})),
            "rank 0 is not a member of the all-reduce of ranks [1] (1 f32)");
}

TEST(LoopbackTest, BarrierAndGather) {
  Job job(3);
  std::vector<std::vector<std::string>> gathered(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r)
    threads.emplace_back([&, r] {
      job[r].barrier("the barrier");
      gathered[r] = job[r].gather("rank" + std::to_string(r), 1);
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_TRUE(gathered[0].empty());
  EXPECT_EQ(gathered[1], (std::vector<std::string>{"rank0", "rank1", "rank2"}));
  EXPECT_TRUE(gathered[2].empty());
}

TEST(LoopbackTest, WatchdogEndsAWaitForAMissingPeer) {
  Job job(2);
  job[1].setTimeout(0.2);
  int value = 0;
  RequestId recv = job[1].irecv(&value, sizeof(int), 0, 1);
  EXPECT_NE(PW_ERROR_OF(job[1].wait(recv, "recv from rank 0"))
                .find("timed out after 0.2 s waiting for 'recv from rank 0'"),
            std::string::npos);
}

TEST(LoopbackTest, ARankThatEndedFailsItsPeersAtOnce) {
  Job job(3);
  int value = 0;
  RequestId recv = job[0].irecv(&value, sizeof(int), 1, 3);
  RequestId sum = job[2].iallreduce(&value, 1, PW_I32, ReduceOp::Sum, {});
  EXPECT_FALSE(job[0].test(recv));
  loopbackRankEnded(*job.hub, 1);
  EXPECT_EQ(PW_ERROR_OF(job[0].test(recv)),
            "rank 1 ended before the message from rank 1 to rank 0 with tag "
            "3 completed");
  EXPECT_EQ(PW_ERROR_OF(job[2].test(sum)),
            "rank 1 ended before the all-reduce of ranks [0, 1, 2] (1 i32) "
            "completed");
}

TEST(LoopbackTest, AbortGoesThroughTheHandler) {
  Job job(2);
  std::string seen;
  setLoopbackAbortHandler(*job.hub, [&](int rank, const std::string &message,
                                        int code) {
    seen = std::to_string(rank) + ":" + message + ":" + std::to_string(code);
    throw Error("aborted");
  });
  EXPECT_EQ(PW_ERROR_OF(job[1].abort("bad step", 3)), "aborted");
  EXPECT_EQ(seen, "1:bad step:3");
}

TEST(LoopbackTest, RunLoopbackRanksGivesEachRankAThread) {
  auto hub = createLoopbackHub(3);
  std::vector<std::string> aborted;
  std::mutex mutex;
  setLoopbackAbortHandler(
      *hub, [&](int rank, const std::string &message, int code) {
        std::lock_guard<std::mutex> lock(mutex);
        aborted.push_back(std::to_string(rank) + ":" + message + ":" +
                          std::to_string(code));
      });
  std::atomic<int> seen{0};
  int code = runLoopbackRanks(*hub, [&](int rank) {
    EXPECT_EQ(currentLoopbackRank(), rank);
    seen |= 1 << rank;
    if (rank == 1)
      throw Error("rank one failed", ExitUsage);
    return rank == 2 ? 5 : 0;
  });
  EXPECT_EQ(seen.load(), 7);
  EXPECT_EQ(code, ExitUsage); // The first non-zero code in rank order.
  EXPECT_EQ(aborted, std::vector<std::string>{"1:rank one failed:2"});
  EXPECT_EQ(currentLoopbackRank(), -1);
}
