// Idle and slow connections cost the server no thread (issue 10): with 1,000
// connections that send nothing and 200 that never finish their head open
// against a rapportd with default settings, a new client is still answered
// within a second, and the idle ones are left open (they are under
// server.max_connections, and within server.header_timeout).
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <vector>

#include "e2e/connections/ConnectionSuite.h"

using namespace rapport::e2e;

namespace {

constexpr int kIdle = 1000;
constexpr int kUnfinished = 200;
// What a new client may wait for its answer beside them.
constexpr long long kAnswerWithinMs = 1000;
// The default server.header_timeout: the crowd is closed by the server after
// it, so every check on it must come earlier (with a margin).
constexpr long long kCrowdChecksBeforeMs = 9000;

using Connections = std::vector<std::unique_ptr<RawConnection>>;

// How many of `connections` are not open any more (closed, or answered).
int countNotOpen(Connections& connections) {
  int count = 0;
  for (auto& connection : connections) {
    if (connection->peek() != RawConnection::Peek::Open) ++count;
  }
  return count;
}

}  // namespace

class CrowdTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CrowdTest);
  CPPUNIT_TEST(testNewClientsAreAnsweredBesideIdleAndUnfinishedConnections);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNewClientsAreAnsweredBesideIdleAndUnfinishedConnections() {
    const rlim_t files = raiseOpenFileLimit();
    CPPUNIT_ASSERT_MESSAGE("open-file hard limit too low for the test: " + std::to_string(files),
                           files >= kIdle + kUnfinished + 100);
    ServerProcess server;  // default settings: the behaviour a new user gets
    const auto opened = RawConnection::Clock::now();
    Connections idle;
    for (int i = 0; i < kIdle; ++i) idle.push_back(std::make_unique<RawConnection>(server.port()));
    Connections unfinished;
    for (int i = 0; i < kUnfinished; ++i) {
      unfinished.push_back(std::make_unique<RawConnection>(server.port()));
      unfinished.back()->send(kUnfinishedHead);
    }

    // Two new clients in turn, each timed from its connect to its answer.
    for (int client = 1; client <= 2; ++client) {
      const auto start = RawConnection::Clock::now();
      RawConnection connection(server.port());
      connection.send(kVersionsRequest);
      const HttpResult answer = connection.readResponse(std::chrono::seconds(5));
      const long long took = millisecondsBetween(start, RawConnection::Clock::now());
      E2E_ASSERT_DATA(200, answer);
      CPPUNIT_ASSERT_MESSAGE("new client " + std::to_string(client) + " answered after " +
                                 std::to_string(took) + " ms beside " + std::to_string(kIdle) +
                                 " idle and " + std::to_string(kUnfinished) +
                                 " unfinished connections",
                             took < kAnswerWithinMs);
    }

    // Nothing was shed: the crowd is far under the default cap (10,000).
    const int idleGone = countNotOpen(idle);
    const int unfinishedGone = countNotOpen(unfinished);
    const long long elapsed = millisecondsBetween(opened, RawConnection::Clock::now());
    CPPUNIT_ASSERT_MESSAGE("the crowd checks took " + std::to_string(elapsed) +
                               " ms: too late, the header time-out may have closed it",
                           elapsed < kCrowdChecksBeforeMs);
    CPPUNIT_ASSERT_EQUAL_MESSAGE("idle connections closed or answered", 0, idleGone);
    CPPUNIT_ASSERT_EQUAL_MESSAGE("unfinished connections closed or answered", 0, unfinishedGone);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CrowdTest);
