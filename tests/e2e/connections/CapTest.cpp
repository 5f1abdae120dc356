// Connection caps (issue 10, README "server.*"):
// - server.max_connections: a new connection beyond the cap closes the least
//   recently active idle connection and is served;
// - server.max_connections_per_address: a new connection from an address at
//   its cap gets 503 + close; other addresses are not affected; once one of
//   the address's connections closes, the address is served again.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <vector>

#include "e2e/connections/ConnectionSuite.h"

using namespace rapport::e2e;

namespace {

constexpr auto kAnswerWithin = std::chrono::seconds(5);

// A keep-alive connection that has had one exchange: accepted, and its last
// activity is known.
std::unique_ptr<RawConnection> servedConnection(int port, const std::string& source = "") {
  auto connection = std::make_unique<RawConnection>(port, source);
  connection->send(kVersionsRequest);
  E2E_ASSERT_DATA(200, connection->readResponse(kAnswerWithin));
  return connection;
}

}  // namespace

class CapTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CapTest);
  CPPUNIT_TEST(testOverTheCapTheLeastRecentlyActiveIsShed);
  CPPUNIT_TEST(testOverTheAddressCapGets503UntilOneCloses);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOverTheCapTheLeastRecentlyActiveIsShed() {
    // Keep-alive and header time-outs far beyond the test: only the cap closes.
    ServerProcess server(generousSettings({{"server.max_connections", "20"},
                                           {"server.keep_alive_timeout", "60"},
                                           {"server.header_timeout", "60"}}));
    std::vector<std::unique_ptr<RawConnection>> open;
    for (int i = 0; i < 20; ++i) open.push_back(servedConnection(server.port()));

    auto newcomer = servedConnection(server.port());

    // Exactly one of the twenty is closed, without a word: the first.
    const RawConnection::Ending first = open.front()->waitForClose(kAnswerWithin);
    std::string othersClosed;
    for (std::size_t i = 1; i < open.size(); ++i) {
      if (open[i]->peek() != RawConnection::Peek::Open) othersClosed += " " + std::to_string(i + 1);
    }
    CPPUNIT_ASSERT_MESSAGE(
        "the first connection: " + describe(first) + "\nothers closed:" + othersClosed,
        first.kind == RawConnection::Ending::Kind::Closed && first.bytes.empty() &&
            othersClosed.empty());
    open.back()->send(kVersionsRequest);
    E2E_ASSERT_DATA(200, open.back()->readResponse(kAnswerWithin));
    newcomer->send(kVersionsRequest);
    E2E_ASSERT_DATA(200, newcomer->readResponse(kAnswerWithin));
  }

  void testOverTheAddressCapGets503UntilOneCloses() {
    ServerProcess server(generousSettings({{"server.max_connections_per_address", "3"},
                                           {"server.keep_alive_timeout", "60"},
                                           {"server.header_timeout", "60"}}));
    std::vector<std::unique_ptr<RawConnection>> open;
    for (int i = 0; i < 3; ++i) open.push_back(servedConnection(server.port()));

    RawConnection fourth(server.port());
    fourth.send(kVersionsRequest);
    CONNECTIONS_ASSERT_CLOSING_ERROR(503, fourth.readResponse(kAnswerWithin));
    CONNECTIONS_ASSERT_CLOSED_SILENTLY(fourth, kAnswerWithin);

    // Another client address (every 127.x is loopback) has its own count.
    servedConnection(server.port(), "127.0.0.2");
    // The three are untouched by the refusal.
    for (auto& connection : open) {
      connection->send(kVersionsRequest);
      E2E_ASSERT_DATA(200, connection->readResponse(kAnswerWithin));
    }

    open.front()->close();
    // The server sees the close when it reads the connection: poll, bounded.
    HttpResult last;
    const bool served = waitUntil(
        [&] {
          RawConnection next(server.port());
          next.send(kVersionsRequest);
          last = next.readResponse(kAnswerWithin);
          if (last.status == 503) return false;
          E2E_ASSERT_DATA(200, last);
          return true;
        },
        std::chrono::seconds(5));
    CPPUNIT_ASSERT_MESSAGE("still refused 5 s after a connection closed:\n" + describe(last),
                           served);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CapTest);
