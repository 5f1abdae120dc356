// Slow bodies (issue 21, README "server.body_timeout", "server.max_connections"):
// - server.body_timeout is a total from the end of the head, not a silence:
//   a body trickled one byte a second past it gets 408 and the connection
//   closes (before, each byte restarted the clock and it stayed open for ever);
// - at server.max_connections with no idle connection, a new client closes
//   the connection receiving the slowest body and is served (before, a body
//   being received was never shed: trickling bodies locked new clients out).
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "e2e/connections/ConnectionSuite.h"

using namespace rapport::e2e;
using Clock = RawConnection::Clock;

namespace {

constexpr long long kWholeBodyTimeoutMs = 2000;
// Latest acceptable 408 after the 2 s deadline (the sweep, a busy machine).
constexpr long long kLate408Ms = 5000;
// The pace of a slow client: a byte a second.
constexpr auto kBytePace = std::chrono::seconds(1);
// The head of a login whose body is announced as 100 bytes, of which a slow
// client sends a byte at a time (100 s at its pace), less its blank line
// (so a field may follow).
const std::string kSlowLoginHead =
    "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    "Content-Length: 100\r\n";

}  // namespace

class SlowBodyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SlowBodyTest);
  CPPUNIT_TEST(testTrickledBodyPastTheDeadlineGets408);
  CPPUNIT_TEST(testTricklingBodiesAreShedForANewClient);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTrickledBodyPastTheDeadlineGets408() {
    ServerProcess server(generousSettings({{"server.body_timeout", "2"}}));
    RawConnection connection(server.port());
    connection.send(kSlowLoginHead + "\r\n{");
    const auto headSent = Clock::now();
    int sent = 1;
    // A byte a second until the server speaks (or closes).
    while (!connection.readable(kBytePace)) {
      CPPUNIT_ASSERT_MESSAGE("a byte a second for 10 s without an answer", sent < 10);
      if (!connection.trySend(" ")) break;
      ++sent;
    }
    const HttpResult answer = connection.readResponse(std::chrono::seconds(5));
    const long long took = millisecondsBetween(headSent, Clock::now());
    CONNECTIONS_ASSERT_CLOSING_ERROR(408, answer);
    CPPUNIT_ASSERT_MESSAGE("408 after " + std::to_string(took) + " ms",
                           took >= kWholeBodyTimeoutMs && took < kLate408Ms);
    CPPUNIT_ASSERT_MESSAGE("sent " + std::to_string(sent) + " bytes", sent >= 2);
    CONNECTIONS_ASSERT_CLOSED_SILENTLY(connection, std::chrono::seconds(3));
  }

  // Five connections trickle bodies at a byte a second, filling
  // server.max_connections; deadlines far away. A new client is refused
  // while the bodies are younger than a second (they have not shown their
  // pace), then served in the place of one of them.
  void testTricklingBodiesAreShedForANewClient() {
    constexpr int kCap = 5;
    ServerProcess server(generousSettings({{"server.max_connections", std::to_string(kCap)},
                                           {"server.io_threads", "1"},
                                           {"server.header_timeout", "60"},
                                           {"server.body_timeout", "60"},
                                           {"metrics.listen", "127.0.0.1:0"}}));
    // Each waits for the interim answer, sent once its head is read: all are
    // receiving their bodies, none is an idle connection to shed.
    std::vector<std::unique_ptr<RawConnection>> trickling;
    for (int i = 0; i < kCap; ++i) {
      trickling.push_back(std::make_unique<RawConnection>(server.port()));
      trickling.back()->send(kSlowLoginHead + "Expect: 100-continue\r\n\r\n");
      CPPUNIT_ASSERT_EQUAL(100, trickling.back()->readResponse(std::chrono::seconds(5)).status);
      trickling.back()->send("{");
    }
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    HttpResult answer;
    int shed = 0;
    while (Clock::now() < deadline) {
      const auto round = Clock::now();
      RawConnection newcomer(server.port());
      newcomer.send(kVersionsRequest);
      answer = newcomer.readResponse(std::chrono::seconds(5));
      shed = 0;
      for (auto& connection : trickling) {
        if (connection->peek() != RawConnection::Peek::Open) ++shed;
      }
      if (answer.status == 200 && shed > 0) break;
      if (answer.status != 200) CONNECTIONS_ASSERT_CLOSING_ERROR(503, answer);
      for (auto& connection : trickling) connection->trySend(" ");
      std::this_thread::sleep_until(round + kBytePace);  // the clients' pace
    }
    E2E_ASSERT_DATA(200, answer);
    CPPUNIT_ASSERT_MESSAGE("shed " + std::to_string(shed) + " of " + std::to_string(kCap),
                           shed >= 1 && shed < kCap);
    // Shed as a slow body, not as an idle connection.
    CPPUNIT_ASSERT(closedFor(server, "shed_slow_body") >= 1);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SlowBodyTest);
