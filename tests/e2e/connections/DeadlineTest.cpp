// The deadlines of a connection (issue 10, README "server.*"): a request head
// must arrive whole within server.header_timeout (408 + close when some bytes
// came, a silent close when none did), however steadily its bytes trickle
// in; a body must keep coming (server.body_timeout: 408 + close); an idle
// keep-alive connection is closed after server.keep_alive_timeout. A slow but
// steady head that finishes in time is served.
//
// Times are measured from before connect(): the server counts the header
// time-out from its accept, which comes later, so "at least the time-out" is
// safe to assert; the upper bounds leave room for the sweep (four a second)
// and a busy machine.
#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <thread>

#include "e2e/connections/ConnectionSuite.h"

using namespace rapport::e2e;
using Clock = RawConnection::Clock;

namespace {

constexpr long long kHeaderTimeoutMs = 2000;
constexpr long long kBodyTimeoutMs = 2000;
constexpr long long kKeepAliveTimeoutMs = 1000;
// Latest acceptable end after a 2 s deadline (and after the 1 s keep-alive one).
constexpr long long kLateMs = 5000;
constexpr auto kWaitAtMost = std::chrono::milliseconds(8000);
// The pace of a slow client: one byte every 200 ms.
constexpr auto kTrickle = std::chrono::milliseconds(200);

// Short deadlines, so the tests wait seconds rather than the defaults.
ServerProcess::Settings shortDeadlines() {
  return generousSettings({{"server.header_timeout", "2"},
                           {"server.body_timeout", "2"},
                           {"server.keep_alive_timeout", "1"}});
}

std::string within(long long low, long long high, long long measured) {
  return "expected after " + std::to_string(low) + " ms and before " + std::to_string(high) +
         " ms, was " + std::to_string(measured) + " ms";
}

}  // namespace

class DeadlineTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DeadlineTest);
  CPPUNIT_TEST(testUnfinishedHeadGets408ThenClose);
  CPPUNIT_TEST(testSilentConnectionIsClosedWithoutAnswer);
  CPPUNIT_TEST(testTrickledHeadOverTheDeadlineGets408);
  CPPUNIT_TEST(testIdleKeepAliveConnectionIsClosed);
  CPPUNIT_TEST(testStalledBodyGets408ThenClose);
  CPPUNIT_TEST(testSlowSteadyHeadWithinTheDeadlineIsServed);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testUnfinishedHeadGets408ThenClose() {
    ServerProcess server(shortDeadlines());
    const auto start = Clock::now();
    RawConnection connection(server.port());
    connection.send(kUnfinishedHead);
    const HttpResult answer = connection.readResponse(kWaitAtMost);
    const long long took = millisecondsBetween(start, Clock::now());
    CONNECTIONS_ASSERT_CLOSING_ERROR(408, answer);
    CPPUNIT_ASSERT_MESSAGE(within(kHeaderTimeoutMs, kLateMs, took),
                           took >= kHeaderTimeoutMs && took < kLateMs);
    CONNECTIONS_ASSERT_CLOSED_SILENTLY(connection, std::chrono::seconds(3));
  }

  // No byte came: nothing to answer, the connection is just closed.
  void testSilentConnectionIsClosedWithoutAnswer() {
    ServerProcess server(shortDeadlines());
    const auto start = Clock::now();
    RawConnection connection(server.port());
    const auto closed = CONNECTIONS_ASSERT_CLOSED_SILENTLY(connection, kWaitAtMost);
    const long long took = millisecondsBetween(start, closed);
    CPPUNIT_ASSERT_MESSAGE(within(kHeaderTimeoutMs, kLateMs, took),
                           took >= kHeaderTimeoutMs && took < kLateMs);
  }

  // Slowloris: a byte every 200 ms keeps the connection busy but never
  // finishes the head in time; progress does not move the deadline.
  void testTrickledHeadOverTheDeadlineGets408() {
    ServerProcess server(shortDeadlines());
    const auto start = Clock::now();
    RawConnection connection(server.port());
    std::size_t sent = 0;
    // Until the server speaks (or closes): the whole head would take 7.6 s.
    while (!connection.readable(kTrickle)) {
      CPPUNIT_ASSERT_MESSAGE("the whole head was sent without an answer",
                             sent < kVersionsRequest.size());
      if (!connection.trySend(std::string_view(kVersionsRequest).substr(sent, 1))) break;
      ++sent;
    }
    const HttpResult answer = connection.readResponse(kWaitAtMost);
    const long long took = millisecondsBetween(start, Clock::now());
    CONNECTIONS_ASSERT_CLOSING_ERROR(408, answer);
    CPPUNIT_ASSERT_MESSAGE(within(kHeaderTimeoutMs, kLateMs, took),
                           took >= kHeaderTimeoutMs && took < kLateMs);
    CPPUNIT_ASSERT_MESSAGE("sent " + std::to_string(sent) + " bytes", sent >= 5);
  }

  void testIdleKeepAliveConnectionIsClosed() {
    ServerProcess server(shortDeadlines());
    RawConnection connection(server.port());
    connection.send(kVersionsRequest);
    const HttpResult answer = connection.readResponse(kWaitAtMost);
    const auto answered = Clock::now();
    E2E_ASSERT_DATA(200, answer);
    CPPUNIT_ASSERT_MESSAGE(describe(answer), !saysClose(answer));
    const auto closed = CONNECTIONS_ASSERT_CLOSED_SILENTLY(connection, kWaitAtMost);
    const long long idle = millisecondsBetween(answered, closed);
    // The server counts from its last byte written, a moment before we read
    // it: 100 ms of slack below the time-out.
    CPPUNIT_ASSERT_MESSAGE(within(kKeepAliveTimeoutMs - 100, kLateMs - 1000, idle),
                           idle >= kKeepAliveTimeoutMs - 100 && idle < kLateMs - 1000);
  }

  // A body announced as 10 bytes stops after 3.
  void testStalledBodyGets408ThenClose() {
    ServerProcess server(shortDeadlines());
    RawConnection connection(server.port());
    connection.send(
        "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 10\r\n\r\n{\"e");
    const auto stalled = Clock::now();
    const HttpResult answer = connection.readResponse(kWaitAtMost);
    const long long took = millisecondsBetween(stalled, Clock::now());
    CONNECTIONS_ASSERT_CLOSING_ERROR(408, answer);
    CPPUNIT_ASSERT_MESSAGE(within(kBodyTimeoutMs, kLateMs, took),
                           took >= kBodyTimeoutMs && took < kLateMs);
    CONNECTIONS_ASSERT_CLOSED_SILENTLY(connection, std::chrono::seconds(3));
  }

  // 38 bytes at one every 200 ms: 7.4 s, within a 10 s header time-out.
  void testSlowSteadyHeadWithinTheDeadlineIsServed() {
    ServerProcess server(generousSettings({{"server.header_timeout", "10"}}));
    RawConnection connection(server.port());
    for (std::size_t i = 0; i < kVersionsRequest.size(); ++i) {
      if (i > 0) std::this_thread::sleep_for(kTrickle);  // the client's pace, not a wait for luck
      CPPUNIT_ASSERT_MESSAGE("the server spoke or closed after " + std::to_string(i) + " bytes",
                             connection.peek() == RawConnection::Peek::Open);
      connection.send(std::string_view(kVersionsRequest).substr(i, 1));
    }
    E2E_ASSERT_DATA(200, connection.readResponse(std::chrono::seconds(5)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DeadlineTest);
