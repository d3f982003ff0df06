//===- TcpRendezvousTest.cpp - Hand rank 0's bytes to every rank ----------===//
//
// Part of the pipewave project.
//
// Ranks are threads of this process talking over the loopback interface;
// the server picks a free port.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/TcpRendezvous.h"

#include "TestUtil.h"

#include <arpa/inet.h>
#include <functional>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace pipewave::runtime;

namespace {

/// The error of `body` run on a thread ("" if none).
std::thread errorThread(std::string &error, std::function<void()> body) {
  return std::thread([&error, body] {
    try {
      body();
    } catch (const Error &e) {
      error = e.what();
    }
  });
}

} // namespace

TEST(TcpRendezvousTest, EveryRankGetsRankZerosBytes) {
  TcpRendezvousServer server(0);
  ASSERT_GT(server.port(), 0);
  std::string payload(128, '\0');
  for (size_t i = 0; i < payload.size(); ++i)
    payload[i] = static_cast<char>(i * 7);
  std::vector<std::string> got(4);
  std::vector<std::thread> ranks;
  // Ranks 2 and 3 connect before rank 0 serves; rank 1 later.
  for (int r : {3, 2})
    ranks.emplace_back([&, r] {
      got[r] = fetchFromRendezvous("localhost", server.port(), r, 4, 10);
    });
  std::thread serving([&] { server.serve(payload, 4, 10); });
  ranks.emplace_back([&] {
    got[1] = fetchFromRendezvous("127.0.0.1", server.port(), 1, 4, 10);
  });
  serving.join();
  for (std::thread &t : ranks)
    t.join();
  for (int r = 1; r < 4; ++r)
    EXPECT_EQ(got[r], payload) << "rank " << r;
}

TEST(TcpRendezvousTest, ARankRetriesUntilRankZeroListens) {
  // Find a free port, release it, start the client first.
  int port;
  {
    TcpRendezvousServer probe(0);
    port = probe.port();
  }
  std::string got, error;
  std::thread client = errorThread(
      error, [&] { got = fetchFromRendezvous("localhost", port, 1, 2, 10); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  TcpRendezvousServer server(port);
  server.serve("late id", 2, 10);
  client.join();
  EXPECT_EQ(error, "");
  EXPECT_EQ(got, "late id");
}

TEST(TcpRendezvousTest, RankZeroTimesOutNamingTheMissingRanks) {
  TcpRendezvousServer server(0);
  std::string got;
  std::thread client(
      [&] { got = fetchFromRendezvous("localhost", server.port(), 2, 4, 10); });
  std::string error = PW_ERROR_OF(server.serve("id", 4, 0.5));
  client.join();
  EXPECT_EQ(got, "id");
  EXPECT_EQ(error, "rank 0 waited 0.5 s on port " +
                       std::to_string(server.port()) +
                       " for ranks [1, 3] to connect (MASTER_ADDR and "
                       "MASTER_PORT must name rank 0's host and a free port)");
}

TEST(TcpRendezvousTest, ARankTimesOutWithoutRankZero) {
  int port;
  {
    TcpRendezvousServer probe(0);
    port = probe.port();
  }
  EXPECT_EQ(
      PW_ERROR_OF(fetchFromRendezvous("127.0.0.1", port, 3, 4, 0.3)),
      "rank 3 could not reach rank 0 at 127.0.0.1:" + std::to_string(port) +
          " within 0.3 s (last error: Connection refused)");
}

TEST(TcpRendezvousTest, RankZeroRefusesInconsistentRanks) {
  struct Case {
    int rank, size;
    std::string reason;
  };
  for (const Case &c :
       {Case{1, 3, "rank 1 says the world has 3 ranks, rank 0 has 2"},
        Case{0, 2, "rank 0 is outside the 2 ranks (or is a second rank 0)"},
        Case{5, 2, "rank 5 is outside the 2 ranks (or is a second rank 0)"}}) {
    TcpRendezvousServer server(0);
    std::string serverError, clientError;
    std::thread serving =
        errorThread(serverError, [&] { server.serve("id", 2, 10); });
    clientError = PW_ERROR_OF(
        fetchFromRendezvous("localhost", server.port(), c.rank, c.size, 10));
    serving.join();
    EXPECT_EQ(serverError, "rendezvous: " + c.reason);
    EXPECT_EQ(clientError,
              "rank 0 at localhost:" + std::to_string(server.port()) +
                  " refused rank " + std::to_string(c.rank) + ": " + c.reason);
  }
}

TEST(TcpRendezvousTest, ARankConnectingTwiceIsRefused) {
  TcpRendezvousServer server(0);
  std::string serverError;
  std::thread serving =
      errorThread(serverError, [&] { server.serve("id", 3, 10); });
  EXPECT_EQ(fetchFromRendezvous("localhost", server.port(), 1, 3, 10), "id");
  EXPECT_NE(
      PW_ERROR_OF(fetchFromRendezvous("localhost", server.port(), 1, 3, 10))
          .find("refused rank 1: rank 1 connected twice"),
      std::string::npos);
  serving.join();
  EXPECT_EQ(serverError, "rendezvous: rank 1 connected twice");
}

TEST(TcpRendezvousTest, SetUpErrors) {
  TcpRendezvousServer taken(0);
  EXPECT_NE(PW_ERROR_OF(TcpRendezvousServer(taken.port()))
                .find("rank 0 cannot listen on port " +
                      std::to_string(taken.port()) +
                      " (MASTER_PORT): Address already in use"),
            std::string::npos);
  EXPECT_EQ(PW_ERROR_OF(TcpRendezvousServer(70000)),
            "rendezvous port 70000 is not a port number");
  EXPECT_NE(PW_ERROR_OF(fetchFromRendezvous("no-such-host.invalid", 1, 1, 2, 1))
                .find("rank 1 cannot resolve MASTER_ADDR "
                      "'no-such-host.invalid': "),
            std::string::npos);
}

TEST(TcpRendezvousTest, StrayConnectionsAreIgnored) {
  TcpRendezvousServer server(0);
  std::string serverError;
  std::thread serving =
      errorThread(serverError, [&] { server.serve("id", 2, 10); });
  // A client that sends garbage and leaves.
  std::string got;
  {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(server.port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(
        connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)),
        0);
    ASSERT_EQ(write(fd, "GET / HTTP/1.0\r\n\r\n", 18), 18);
    close(fd);
  }
  got = fetchFromRendezvous("localhost", server.port(), 1, 2, 10);
  serving.join();
  EXPECT_EQ(serverError, "");
  EXPECT_EQ(got, "id");
}
