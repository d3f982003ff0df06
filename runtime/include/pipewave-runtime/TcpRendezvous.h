//===- TcpRendezvous.h - Hand rank 0's bytes to every rank ------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The bootstrap of a job started without MPI (torchrun-style: RANK,
// WORLD_SIZE, MASTER_ADDR, MASTER_PORT): rank 0 listens on MASTER_PORT and
// hands a few bytes (the NCCL unique id) to each of the other ranks, which
// connect to MASTER_ADDR:MASTER_PORT, retrying until rank 0 is up. Plain
// TCP, one short exchange per rank:
//
//   rank r -> rank 0:  "PWRV", version, r, world size      (4 x 4 bytes)
//   rank 0 -> rank r:  status (0 ok, 1 refused), length, bytes
//
// Rank 0 refuses a rank whose world size differs from its own, a rank
// outside the world and a rank that connected twice, and says why; every
// side gives up with an Error after its timeout, naming what it waited for.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_TCPRENDEZVOUS_H
#define PIPEWAVE_RUNTIME_TCPRENDEZVOUS_H

#include <string>

namespace pipewave::runtime {

/// Rank 0's side: listening from construction (port 0 picks a free port).
class TcpRendezvousServer {
public:
  /// Throws Error when the port cannot be bound.
  explicit TcpRendezvousServer(int port);
  ~TcpRendezvousServer();
  TcpRendezvousServer(const TcpRendezvousServer &) = delete;
  TcpRendezvousServer &operator=(const TcpRendezvousServer &) = delete;

  /// The port listened on.
  int port() const { return boundPort; }

  /// Hands `payload` to ranks 1 .. worldSize-1, each once. Throws Error
  /// when they have not all connected within `timeoutSeconds`, or when a
  /// rank is refused (after telling it why).
  void serve(const std::string &payload, int worldSize, double timeoutSeconds);

private:
  int listener = -1;
  int boundPort = 0;
};

/// Rank `rank`'s side: the bytes rank 0 serves at `host`:`port`. Throws
/// Error when rank 0 cannot be reached within `timeoutSeconds` or refuses.
std::string fetchFromRendezvous(const std::string &host, int port, int rank,
                                int worldSize, double timeoutSeconds);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_TCPRENDEZVOUS_H
