//===- LoopbackHub.h - Matching state of the loopback ranks -----*- C++ -*-===//
//
// Part of the pipewave project.
//
// Private to the runtime library: what the ranks of one process share (see
// Loopback.h for the behaviour). Every member is guarded by `mutex`, which
// is never held while a device works or the host waits for one.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_LIB_LOOPBACKHUB_H
#define PIPEWAVE_RUNTIME_LIB_LOOPBACKHUB_H

#include "pipewave-runtime/Loopback.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace pipewave::runtime {

/// One message: a send, a receive, or both once matched.
struct LoopbackMessage {
  int src = 0;
  int dst = 0;
  int64_t tag = 0;
  const void *sendData = nullptr;
  size_t sendBytes = 0;
  bool sendPosted = false;
  void *recvData = nullptr;
  size_t recvBytes = 0;
  bool recvPosted = false;
  /// Posted with isendAfter: the sender's thread copies on its device.
  bool deviceSend = false;
  bool copyIssued = false;
  bool done = false;
  /// Set when the message failed (both sides' test() throw it).
  std::string error;

  std::string describe() const;
};

enum class CollectiveKind { AllReduce, Barrier, Gather };

/// One collective of a group.
struct LoopbackCollective {
  CollectiveKind kind = CollectiveKind::Barrier;
  /// Sorted member ranks.
  std::vector<int> group;
  int32_t dtype = 0;
  ReduceOp op = ReduceOp::Sum;
  size_t count = 0;
  /// Device memory (iallreduceAfter): summed by the last member's device.
  bool onDevice = false;
  int root = 0;
  /// Per member (group order): its buffer, its gathered bytes, posted.
  std::vector<void *> data;
  std::vector<std::string> strings;
  std::vector<bool> posted;
  int numPosted = 0;
  /// The member that posted first.
  int opener = -1;
  bool done = false;
  std::string error;

  std::string describe() const;
};

class LoopbackHub {
public:
  explicit LoopbackHub(int size);

  int size() const { return numRanks; }

  std::mutex mutex;
  LoopbackAbortHandler abortHandler;
  std::vector<bool> ended;

  // The calls below need `mutex` held.

  /// Posts a send (`device`: by isendAfter) or a receive and matches it.
  /// A matched host send is copied at once; a matched device send joins
  /// the sender's copies to issue (takeCopies). Throws Error on a size
  /// mismatch (the message fails for both sides).
  std::shared_ptr<LoopbackMessage> postSend(int src, int dst, int64_t tag,
                                            const void *data, size_t bytes,
                                            bool device);
  std::shared_ptr<LoopbackMessage> postRecv(int dst, int src, int64_t tag,
                                            void *data, size_t bytes);
  /// Matched device sends of `rank` whose copy is not issued yet.
  std::vector<std::shared_ptr<LoopbackMessage>> takeCopies(int rank);

  /// Posts `rank`'s part of the next collective of `spec.group` (its data
  /// pointer or gathered bytes). Sets `last` when every member has now
  /// posted: the caller then completes it (host collectives are completed
  /// here, before returning). Throws Error when the members disagree on
  /// the operation.
  std::shared_ptr<LoopbackCollective>
  postCollective(int rank, const LoopbackCollective &spec, void *data,
                 const std::string &bytes, bool &last);

  /// A rank that has ended and that `message` / `collective` still needs,
  /// or -1.
  int missingRank(const LoopbackMessage &message) const;
  int missingRank(const LoopbackCollective &collective) const;

private:
  using Key = std::tuple<int, int, int64_t>;
  int numRanks;
  std::map<Key, std::deque<std::shared_ptr<LoopbackMessage>>> sends, recvs;
  std::vector<std::vector<std::shared_ptr<LoopbackMessage>>> copies;

  /// Takes the oldest message of `waiting` (the other side's postings of
  /// this key) or makes one, lets `fill` record this side, then matches it
  /// if both sides are posted, else queues it on `posted`.
  std::shared_ptr<LoopbackMessage>
  post(std::deque<std::shared_ptr<LoopbackMessage>> &waiting,
       std::deque<std::shared_ptr<LoopbackMessage>> &posted, int src, int dst,
       int64_t tag, const std::function<void(LoopbackMessage &)> &fill);
  /// Per group: the next collective sequence number of each rank, and the
  /// collectives some member has posted but not every member.
  std::map<std::vector<int>, std::vector<int64_t>> nextSequence;
  std::map<std::pair<std::vector<int>, int64_t>,
           std::shared_ptr<LoopbackCollective>>
      open;

  void match(const std::shared_ptr<LoopbackMessage> &message);
  void reduceOnHost(LoopbackCollective &collective);
};

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_LIB_LOOPBACKHUB_H
