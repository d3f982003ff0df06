//===- CommWorker.cpp - Two-rank communication microbenchmark -------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Ping-pong of a small and a large message between ranks 0 and 1 (one-way
// time = round trip / 2), and all-reduces of one float and of the large
// buffer, through the runtime's MPI backend, the transport pipewave-run
// gives compiled models. With the ring formula of the simulator for two
// ranks, an all-reduce of b bytes takes 2 latency + b / bandwidth. Then the
// one-way time of messages from 8 B to 4 MiB, with sizes just below and
// above 4 KiB and 64 KiB (where MPI transports switch from eager sends to a
// rendezvous), for the simulator's pointToPoint table, and at each size the
// CPU time of posting a send and of posting and completing a receive whose
// message is there (the table's send and recv), and the wait for a message
// that arrived while the receiver ran no MPI call (deliver). Every figure
// is the
// median of five timed batches, not one mean, so that one interrupted batch
// does not set it.
//
//===----------------------------------------------------------------------===//

#include "Measure.h"

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Error.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

using namespace pipewave::runtime;

namespace pipewave::calibrate {

namespace {

/// Each figure is the median of this many timed batches: a batch that a
/// process of the machine interrupted (a core taken for a millisecond, as
/// a launcher's wake-up can) then does not set it.
constexpr int kBatches = 5;

/// The median of `batches` runs of `measure()`.
template <typename Measure> double medianOf(int batches, Measure measure) {
  std::vector<double> times;
  for (int b = 0; b < batches; ++b)
    times.push_back(measure());
  return median(std::move(times));
}

/// One-way seconds of a `bytes` message, over `rounds` round trips.
double pingPongOnce(Backend &backend, std::vector<char> &buffer, size_t bytes,
                    int rounds) {
  int peer = 1 - backend.rank();
  backend.barrier("ping-pong start");
  double start = backend.now();
  for (int i = 0; i < rounds; ++i) {
    if (backend.rank() == 0) {
      backend.wait(backend.isend(buffer.data(), bytes, peer, i), "ping");
      backend.wait(backend.irecv(buffer.data(), bytes, peer, i), "pong");
    } else {
      backend.wait(backend.irecv(buffer.data(), bytes, peer, i), "ping");
      backend.wait(backend.isend(buffer.data(), bytes, peer, i), "pong");
    }
  }
  return (backend.now() - start) / rounds / 2;
}

/// The median over kBatches of pingPongOnce with `rounds` / kBatches each
/// (both ranks compute the same medians from their own clocks; rank 0's
/// are written).
double pingPong(Backend &backend, std::vector<char> &buffer, size_t bytes,
                int rounds) {
  int each = std::max(rounds / kBatches, 1);
  return medianOf(kBatches,
                  [&] { return pingPongOnce(backend, buffer, bytes, each); });
}

/// Rank 1's `figure` (a receiver's) to rank 0, which writes the figures;
/// `tag` follows the messages of the measurement.
void fromReceiver(Backend &backend, double &figure, int tag) {
  int peer = 1 - backend.rank();
  if (backend.rank() == 1)
    backend.wait(backend.isend(&figure, sizeof figure, peer, tag), "figure");
  else
    backend.wait(backend.irecv(&figure, sizeof figure, peer, tag), "figure");
}

/// CPU seconds a message of `bytes` costs its two ranks besides waiting,
/// per message over a batch of `count` (LogP's overheads), each the median
/// over kBatches batches: the sender's isend call, with the receive
/// already posted as the runtime posts its receives early; the receiver's
/// irecv call, and its wait once the message has been sent (a barrier
/// after the sends: an eager message is then in its queue). Rank 1's
/// receive figure is sent to rank 0.
std::pair<double, double> overheads(Backend &backend, size_t bytes, int count) {
  int rank = backend.rank(), peer = 1 - rank;
  std::vector<char> buffers(bytes * static_cast<size_t>(count));
  auto once = [&](double &send, double &recv) {
    std::vector<RequestId> requests;
    backend.barrier("overhead start");
    double posting = 0;
    if (rank == 1) {
      double start = backend.now();
      for (int i = 0; i < count; ++i)
        requests.push_back(
            backend.irecv(buffers.data() + bytes * i, bytes, peer, i));
      posting = backend.now() - start;
    }
    backend.barrier("receives posted");
    if (rank == 0) {
      double start = backend.now();
      for (int i = 0; i < count; ++i)
        requests.push_back(
            backend.isend(buffers.data() + bytes * i, bytes, peer, i));
      send = (backend.now() - start) / count;
    }
    backend.barrier("sent");
    double start = backend.now();
    for (RequestId request : requests)
      backend.wait(request, "overhead");
    if (rank == 1)
      recv = (posting + backend.now() - start) / count;
  };
  double send = 0, recv = 0;
  once(send, recv); // warm-up
  std::vector<double> sends, recvs;
  for (int b = 0; b < kBatches; ++b) {
    once(send, recv);
    sends.push_back(send);
    recvs.push_back(recv);
  }
  send = median(std::move(sends));
  recv = median(std::move(recvs));
  // Rank 0 writes the figures: it gets the receiver's.
  fromReceiver(backend, recv, count);
  return {send, recv};
}

/// The receiver's seconds completing a message of `bytes` that arrived
/// while it was outside MPI, as a rank's message arrives while it computes:
/// its receive posted early, the send made right after a barrier, the
/// receiver away from MPI for `quietSeconds` and then in its wait, where
/// MPI only now matches the message and copies it in. The median over
/// kBatches of the mean over `count` messages, each one at a time; rank
/// 1's figure is sent to rank 0.
double delivery(Backend &backend, size_t bytes, int count,
                double quietSeconds) {
  int rank = backend.rank(), peer = 1 - rank;
  std::vector<char> buffer(bytes);
  auto once = [&] {
    double waited = 0;
    for (int i = 0; i < count; ++i) {
      RequestId request =
          rank == 1 ? backend.irecv(buffer.data(), bytes, peer, i) : kNoRequest;
      backend.barrier("delivery start");
      if (rank == 0) {
        backend.wait(backend.isend(buffer.data(), bytes, peer, i), "deliver");
        continue;
      }
      // Away from MPI: the clock only.
      double quiet = backend.now();
      while (backend.now() - quiet < quietSeconds) {
      }
      double start = backend.now();
      backend.wait(request, "deliver");
      waited += backend.now() - start;
    }
    return waited / count;
  };
  once(); // warm-up
  double deliver = medianOf(kBatches, once);
  fromReceiver(backend, deliver, count);
  return deliver;
}

/// Seconds of one all-reduce of `count` floats: the median over kBatches
/// of batches of `rounds` / kBatches.
double allReduce(Backend &backend, std::vector<float> &buffer, size_t count,
                 int rounds) {
  int each = std::max(rounds / kBatches, 1);
  return medianOf(kBatches, [&] {
    backend.barrier("all-reduce start");
    double start = backend.now();
    for (int i = 0; i < each; ++i)
      backend.allreduceSum(buffer.data(), count, {0, 1}, "all-reduce");
    return (backend.now() - start) / each;
  });
}

} // namespace

int runCommWorker(int argc, char **argv, const std::string &out, bool quick) {
  try {
    std::unique_ptr<Backend> backend = createMpiBackend(&argc, &argv);
    if (backend->size() != 2) {
      std::fprintf(stderr,
                   "pipewave-calibrate: --comm-worker needs 2 ranks, "
                   "got %d\n",
                   backend->size());
      return 1;
    }
    const size_t large = 4 << 20;
    int small = quick ? 50 : 400, big = quick ? 5 : 40;
    std::vector<char> bytes(large);
    std::vector<float> floats(large / sizeof(float));
    pingPong(*backend, bytes, 8, small / 4); // warm-up
    double latency = pingPong(*backend, bytes, 8, small);
    double oneWay = pingPong(*backend, bytes, large, big);
    allReduce(*backend, floats, 1, small / 4); // warm-up
    double reduceSmall = allReduce(*backend, floats, 1, small);
    double reduceLarge = allReduce(*backend, floats, floats.size(), big);
    const size_t sizes[] = {8,     512,   2048,  4032,   4160,    8192,
                            32768, 65472, 65600, 262144, 1 << 20, large};
    std::vector<double> messageSeconds;
    std::vector<std::pair<double, double>> messageOverheads;
    std::vector<double> messageDeliveries;
    for (size_t size : sizes) {
      int rounds = size <= 65600 ? small : size <= (1 << 20) ? small / 4 : big;
      pingPong(*backend, bytes, size, std::max(rounds / 8, 1)); // warm-up
      messageSeconds.push_back(pingPong(*backend, bytes, size, rounds));
      messageOverheads.push_back(
          overheads(*backend, size, size <= 65600 ? 16 : 4));
      // Away from MPI long enough for the sender to have posted the send
      // (a barrier's ranks leave it microseconds apart) and the message to
      // have arrived.
      messageDeliveries.push_back(delivery(*backend, size,
                                           size <= 65600 ? 16 : 4,
                                           20e-6 + messageSeconds.back()));
    }
    if (backend->rank() == 0) {
      double bandwidth = large / std::max(oneWay - latency, 1e-9);
      double reduceBandwidth =
          large / std::max(reduceLarge - reduceSmall, 1e-9);
      FILE *file = std::fopen(out.c_str(), "w");
      if (!file) {
        std::fprintf(stderr, "pipewave-calibrate: cannot write '%s'\n",
                     out.c_str());
        return 1;
      }
      std::fprintf(file, "%.6g %.6g %.6g %.6g\n", latency, bandwidth,
                   reduceSmall / 2, reduceBandwidth);
      for (size_t i = 0; i < messageSeconds.size(); ++i)
        std::fprintf(file, "%zu %.6g %.6g %.6g %.6g\n", sizes[i],
                     messageSeconds[i], messageOverheads[i].first,
                     messageOverheads[i].second, messageDeliveries[i]);
      std::fclose(file);
    }
    backend->barrier("done");
    return 0;
  } catch (const Error &error) {
    std::fprintf(stderr, "pipewave-calibrate: %s\n", error.what());
    return 1;
  }
}

} // namespace pipewave::calibrate
