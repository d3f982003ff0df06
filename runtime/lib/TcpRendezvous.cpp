//===- TcpRendezvous.cpp - Hand rank 0's bytes to every rank --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/TcpRendezvous.h"
#include "pipewave-runtime/Error.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <set>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace pipewave::runtime {

namespace {

constexpr uint32_t kMagic = 0x50575256; // "PWRV"
constexpr uint32_t kVersion = 1;

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

/// Milliseconds left until `deadline` (at least 0).
int remainingMs(double deadline) {
  double left = deadline - now();
  return left <= 0 ? 0 : static_cast<int>(left * 1000) + 1;
}

/// Reads exactly `bytes`; false on end of file, error or the deadline.
bool readAll(int fd, void *data, size_t bytes, double deadline) {
  auto *out = static_cast<unsigned char *>(data);
  while (bytes) {
    pollfd p = {fd, POLLIN, 0};
    int ready = poll(&p, 1, remainingMs(deadline));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      return false;
    ssize_t got = read(fd, out, bytes);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    out += got;
    bytes -= static_cast<size_t>(got);
  }
  return true;
}

bool writeAll(int fd, const void *data, size_t bytes) {
  auto *in = static_cast<const unsigned char *>(data);
  while (bytes) {
    ssize_t put = send(fd, in, bytes, MSG_NOSIGNAL);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    in += put;
    bytes -= static_cast<size_t>(put);
  }
  return true;
}

/// Status, length, bytes.
bool reply(int fd, uint32_t status, const std::string &bytes) {
  uint32_t header[2] = {htonl(status),
                        htonl(static_cast<uint32_t>(bytes.size()))};
  return writeAll(fd, header, sizeof(header)) &&
         writeAll(fd, bytes.data(), bytes.size());
}

std::string rankList(const std::set<int> &ranks) {
  std::string text = "[";
  for (int r : ranks)
    text += (text.size() > 1 ? ", " : "") + std::to_string(r);
  return text + "]";
}

/// Connects to `address` within `deadline`; -1 and `error` set on failure.
int connectTo(const addrinfo &address, double deadline, std::string &error) {
  int fd = socket(address.ai_family, address.ai_socktype | SOCK_CLOEXEC,
                  address.ai_protocol);
  if (fd < 0) {
    error = std::strerror(errno);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (connect(fd, address.ai_addr, address.ai_addrlen) != 0 &&
      errno != EINPROGRESS) {
    error = std::strerror(errno);
    close(fd);
    return -1;
  }
  pollfd p = {fd, POLLOUT, 0};
  int soError = 0;
  socklen_t length = sizeof(soError);
  if (poll(&p, 1, remainingMs(deadline)) <= 0 ||
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) != 0 ||
      soError != 0) {
    error = soError ? std::strerror(soError) : "no answer";
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

} // namespace

TcpRendezvousServer::TcpRendezvousServer(int port) {
  if (port < 0 || port > 65535)
    throw Error("rendezvous port " + std::to_string(port) +
                " is not a port number");
  listener = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool v6 = listener >= 0;
  if (!v6)
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0)
    throw Error(std::string("rank 0 cannot open a socket: ") +
                std::strerror(errno));
  int one = 1, zero = 0;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int bound;
  if (v6) {
    setsockopt(listener, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    sockaddr_in6 address = {};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_any;
    address.sin6_port = htons(static_cast<uint16_t>(port));
    bound =
        bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof(address));
  } else {
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(static_cast<uint16_t>(port));
    bound =
        bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof(address));
  }
  if (bound != 0 || listen(listener, 128) != 0) {
    std::string reason = std::strerror(errno);
    close(listener);
    throw Error("rank 0 cannot listen on port " + std::to_string(port) +
                " (MASTER_PORT): " + reason);
  }
  sockaddr_storage address = {};
  socklen_t length = sizeof(address);
  getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length);
  boundPort = ntohs(address.ss_family == AF_INET6
                        ? reinterpret_cast<sockaddr_in6 &>(address).sin6_port
                        : reinterpret_cast<sockaddr_in &>(address).sin_port);
}

TcpRendezvousServer::~TcpRendezvousServer() {
  if (listener >= 0)
    close(listener);
}

void TcpRendezvousServer::serve(const std::string &payload, int worldSize,
                                double timeoutSeconds) {
  std::set<int> missing;
  for (int r = 1; r < worldSize; ++r)
    missing.insert(r);
  std::set<int> served;
  double deadline = now() + timeoutSeconds;
  while (!missing.empty()) {
    pollfd p = {listener, POLLIN, 0};
    int ready = poll(&p, 1, remainingMs(deadline));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      throw Error("rank 0 waited " + seconds(timeoutSeconds) + " s on port " +
                  std::to_string(boundPort) + " for ranks " +
                  rankList(missing) +
                  " to connect (MASTER_ADDR and MASTER_PORT must name rank "
                  "0's host and a free port)");
    int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0)
      continue;
    uint32_t hello[4];
    // A connection that says nothing useful within 5 s is dropped.
    if (!readAll(fd, hello, sizeof(hello), std::min(deadline, now() + 5)) ||
        ntohl(hello[0]) != kMagic) {
      close(fd);
      continue;
    }
    int rank = static_cast<int>(ntohl(hello[2]));
    int size = static_cast<int>(ntohl(hello[3]));
    std::string refusal;
    if (ntohl(hello[1]) != kVersion)
      refusal =
          "rank " + std::to_string(rank) + " speaks another rendezvous version";
    else if (size != worldSize)
      refusal = "rank " + std::to_string(rank) + " says the world has " +
                std::to_string(size) + " ranks, rank 0 has " +
                std::to_string(worldSize);
    else if (rank < 1 || rank >= worldSize)
      refusal = "rank " + std::to_string(rank) + " is outside the " +
                std::to_string(worldSize) + " ranks (or is a second rank 0)";
    else if (served.count(rank))
      refusal = "rank " + std::to_string(rank) + " connected twice";
    if (!refusal.empty()) {
      reply(fd, 1, refusal);
      close(fd);
      throw Error("rendezvous: " + refusal);
    }
    bool sent = reply(fd, 0, payload);
    close(fd);
    if (sent) {
      served.insert(rank);
      missing.erase(rank);
    }
  }
}

std::string fetchFromRendezvous(const std::string &host, int port, int rank,
                                int worldSize, double timeoutSeconds) {
  std::string where = host + ":" + std::to_string(port);
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  int status =
      getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (status != 0)
    throw Error("rank " + std::to_string(rank) +
                " cannot resolve MASTER_ADDR '" + host +
                "': " + gai_strerror(status));
  std::vector<addrinfo> addresses;
  for (addrinfo *a = found; a; a = a->ai_next)
    addresses.push_back(*a);
  double deadline = now() + timeoutSeconds;
  std::string error = "no address";
  int fd = -1;
  while (fd < 0) {
    for (const addrinfo &address : addresses)
      if ((fd = connectTo(address, std::min(deadline, now() + 1), error)) >= 0)
        break;
    if (fd >= 0 || now() >= deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  freeaddrinfo(found);
  if (fd < 0)
    throw Error("rank " + std::to_string(rank) + " could not reach rank 0 at " +
                where + " within " + seconds(timeoutSeconds) +
                " s (last error: " + error + ")");
  uint32_t hello[4] = {htonl(kMagic), htonl(kVersion),
                       htonl(static_cast<uint32_t>(rank)),
                       htonl(static_cast<uint32_t>(worldSize))};
  uint32_t header[2];
  std::string bytes;
  bool ok = writeAll(fd, hello, sizeof(hello)) &&
            readAll(fd, header, sizeof(header), deadline);
  if (ok) {
    bytes.resize(ntohl(header[1]));
    ok = readAll(fd, bytes.data(), bytes.size(), deadline);
  }
  close(fd);
  if (!ok)
    throw Error("rank " + std::to_string(rank) + ": rank 0 at " + where +
                " closed the connection or did not answer within " +
                seconds(timeoutSeconds) + " s");
  if (ntohl(header[0]) != 0)
    throw Error("rank 0 at " + where + " refused rank " + std::to_string(rank) +
                ": " + bytes);
  return bytes;
}

} // namespace pipewave::runtime
