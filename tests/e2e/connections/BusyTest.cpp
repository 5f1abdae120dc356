// The limits of a busy server (README "server.max_queued", "server.send_timeout"):
// - server.max_queued: with every worker busy and the queue full, a complete
//   request gets 503 + close at once, from the front end; the queued one is
//   served once a worker is free;
// - server.send_timeout: a client that never reads a large answer has its
//   connection closed after the time-out, and the server keeps answering
//   others meanwhile.
// The gate fixture module (tests/fixtures/modules/gate) holds a worker until
// the test opens the gate and serves answers larger than the socket buffers,
// so neither test races the clock.
#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "e2e/connections/ConnectionSuite.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;
using Clock = RawConnection::Clock;

namespace {

constexpr auto kBusyAnswerWithin = std::chrono::seconds(5);
const std::string kHoldRequest = "GET /v1/gate/hold HTTP/1.1\r\nHost: x\r\n\r\n";
// Far more than a loopback connection buffers (a few MiB at most).
constexpr long long kLargeBytes = 32LL * 1024 * 1024;

// The gate's signals (GateModule.cpp): `entered` when a worker holds
// /v1/gate/hold, `open` to let it go.
struct Gate {
  const std::string dir = rapport::test::tempDirectory("gate");

  void waitEntered() const {
    CPPUNIT_ASSERT_MESSAGE("no worker took /v1/gate/hold within 10 s",
                           waitUntil([this] { return std::filesystem::exists(dir + "/entered"); },
                                     std::chrono::seconds(10)));
  }
  void open() const { std::ofstream(dir + "/open") << "open\n"; }
};

}  // namespace

class BusyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BusyTest);
  CPPUNIT_TEST(testBeyondMaxQueuedGets503AtOnce);
  CPPUNIT_TEST(testUnreadAnswerIsClosedAfterTheSendTimeout);
  CPPUNIT_TEST_SUITE_END();

 public:
  // One worker, held; one place in the queue. Of three requests that come
  // meanwhile, whichever the front end takes first waits in the queue and
  // the other two are refused at once.
  void testBeyondMaxQueuedGets503AtOnce() {
    Gate gate;
    ServerProcess server(
        gateSettings(gate.dir, {{"server.threads", "1"}, {"server.max_queued", "1"}}));
    RawConnection held(server.port());
    held.send(kHoldRequest);
    gate.waitEntered();

    std::vector<std::unique_ptr<RawConnection>> others;
    for (int i = 0; i < 3; ++i) {
      others.push_back(std::make_unique<RawConnection>(server.port()));
      others.back()->send(kVersionsRequest);
    }
    std::vector<bool> refused(others.size(), false);
    int refusals = 0;
    const bool twoRefused = waitUntil(
        [&] {
          for (std::size_t i = 0; i < others.size(); ++i) {
            if (refused[i] || !others[i]->readable(std::chrono::milliseconds(10))) continue;
            const HttpResult answer = others[i]->readResponse(kBusyAnswerWithin);
            CONNECTIONS_ASSERT_CLOSING_ERROR(503, answer);
            CPPUNIT_ASSERT_EQUAL(std::string("1"), answer.header("Retry-After"));
            refused[i] = true;
            ++refusals;
          }
          return refusals == 2;
        },
        kBusyAnswerWithin);
    CPPUNIT_ASSERT_MESSAGE("refused " + std::to_string(refusals) + " of 3", twoRefused);
    CPPUNIT_ASSERT_EQUAL(2.0, refusedFor(server, "max_queued"));
    std::size_t queued = 0;
    while (refused[queued]) ++queued;
    CPPUNIT_ASSERT_MESSAGE("the queued request was answered while the worker was held",
                           others[queued]->peek() == RawConnection::Peek::Open);

    gate.open();
    E2E_ASSERT_DATA(200, held.readResponse(kBusyAnswerWithin));
    E2E_ASSERT_DATA(200, others[queued]->readResponse(kBusyAnswerWithin));
    HttpClient client(server.port());
    E2E_ASSERT_DATA(200, client.get("/v1/versions"));
  }

  void testUnreadAnswerIsClosedAfterTheSendTimeout() {
    Gate gate;
    ServerProcess server(gateSettings(gate.dir, {{"server.send_timeout", "2"}}));
    RawConnection stuck(server.port());
    stuck.send("GET /v1/gate/large?bytes=" + std::to_string(kLargeBytes) +
               " HTTP/1.1\r\nHost: x\r\n\r\n");
    const auto asked = Clock::now();
    // Others are served while the answer waits for its reader.
    HttpClient client(server.port());
    E2E_ASSERT_DATA(200, client.get("/v1/versions"));

    // Never read: the server gives up once the client took nothing for 2 s.
    const bool closed =
        waitUntil([&] { return closedFor(server, "send_timeout") == 1; }, std::chrono::seconds(10));
    const long long took = millisecondsBetween(asked, Clock::now());
    CPPUNIT_ASSERT_MESSAGE("not closed within 10 s", closed);
    CPPUNIT_ASSERT_MESSAGE("closed after " + std::to_string(took) + " ms", took >= 2000);
    // What the client can still read is a part of the answer, then the end.
    const RawConnection::Ending ending = stuck.waitForClose(std::chrono::seconds(10));
    const bool ended = ending.kind != RawConnection::Ending::Kind::StillOpen;
    CPPUNIT_ASSERT_MESSAGE(std::string(ended ? "ended" : "still open") + " after " +
                               std::to_string(ending.bytes.size()) + " bytes",
                           ended && ending.bytes.size() < static_cast<std::size_t>(kLargeBytes));
    HttpClient after(server.port());
    E2E_ASSERT_DATA(200, after.get("/v1/versions"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BusyTest);
