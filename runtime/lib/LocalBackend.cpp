//===- LocalBackend.cpp - Single-process backend --------------------------===//
//
// Part of the pipewave project.
//
// Rank 0 of 1. A message to itself completes when a send and a receive with
// the same tag have both been posted (the data is copied then); collectives
// over one rank complete at once.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace pipewave::runtime {

namespace {

class LocalBackend final : public Backend {
public:
  std::string name() const override { return "local"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }

  RequestId isend(const void *data, size_t bytes, int peer,
                  int64_t tag) override {
    checkPeer(peer);
    RequestId id = newRequest(Kind::Send, const_cast<void *>(data), bytes, tag);
    match(id);
    return id;
  }

  RequestId irecv(void *data, size_t bytes, int peer, int64_t tag) override {
    checkPeer(peer);
    RequestId id = newRequest(Kind::Recv, data, bytes, tag);
    match(id);
    return id;
  }

  bool test(RequestId request) override {
    if (request < 0 || static_cast<size_t>(request) >= requests.size() ||
        requests[request].kind == Kind::Free)
      throw Error("internal error: test() of an unknown request");
    if (!requests[request].done)
      return false;
    requests[request].kind = Kind::Free;
    freeIds.push_back(request);
    return true;
  }

  RequestId iallreduce(void *, size_t, int32_t dtype, ReduceOp,
                       const std::vector<int> &group) override {
    if (dtype != PW_F32 && dtype != PW_F64 && dtype != PW_I32 &&
        dtype != PW_I64)
      throw Error("all-reduce of unsupported dtype " + dtypeName(dtype));
    for (int member : group)
      checkPeer(member);
    return completed();
  }

  RequestId ibarrier() override { return completed(); }

  std::vector<std::string> gather(const std::string &bytes, int root) override {
    checkPeer(root);
    return {bytes};
  }

  [[noreturn]] void abort(const std::string &message, int exitCode) override {
    std::fflush(stdout);
    std::fprintf(stderr, "pipewave: %s\n", message.c_str());
    std::fflush(stderr);
    _exit(exitCode);
  }

private:
  enum class Kind { Free, Send, Recv, Done };
  struct Request {
    Kind kind = Kind::Free;
    void *data = nullptr;
    size_t bytes = 0;
    int64_t tag = 0;
    bool done = false;
  };
  std::vector<Request> requests;
  std::vector<RequestId> freeIds;

  static void checkPeer(int peer) {
    if (peer != 0)
      throw Error("the local backend has only rank 0, not rank " +
                  std::to_string(peer));
  }

  RequestId newRequest(Kind kind, void *data, size_t bytes, int64_t tag) {
    RequestId id;
    if (!freeIds.empty()) {
      id = freeIds.back();
      freeIds.pop_back();
    } else {
      id = static_cast<RequestId>(requests.size());
      requests.emplace_back();
    }
    requests[id] = Request{kind, data, bytes, tag, false};
    return id;
  }

  RequestId completed() {
    RequestId id = newRequest(Kind::Done, nullptr, 0, 0);
    requests[id].done = true;
    return id;
  }

  /// Pairs `id` with the oldest pending operation of the other direction and
  /// the same tag (requests are scanned in creation order of their slots,
  /// which is enough: tags are unique per pair).
  void match(RequestId id) {
    Request &self = requests[id];
    Kind other = self.kind == Kind::Send ? Kind::Recv : Kind::Send;
    for (size_t i = 0; i < requests.size(); ++i) {
      Request &peer = requests[i];
      if (peer.kind != other || peer.done || peer.tag != self.tag)
        continue;
      Request &send = self.kind == Kind::Send ? self : peer;
      Request &recv = self.kind == Kind::Recv ? self : peer;
      if (send.bytes != recv.bytes)
        throw Error("message size mismatch for tag " +
                    std::to_string(self.tag) + ": sent " +
                    std::to_string(send.bytes) + " bytes, receiving " +
                    std::to_string(recv.bytes));
      if (send.bytes)
        std::memcpy(recv.data, send.data, send.bytes);
      send.done = recv.done = true;
      return;
    }
  }
};

} // namespace

std::unique_ptr<Backend> createLocalBackend() {
  return std::make_unique<LocalBackend>();
}

} // namespace pipewave::runtime
