// SIGTERM drains (issue 10, decisions §12): a request a worker is running
// when the signal comes is finished and answered in full, with
// Connection: close, and the process exits 0.
//
// How the request is made slow, for certain: POST /v1/auth/register hashes
// the password with argon2id, and auth.argon2.iterations = 150 makes that
// take about 3 s of CPU here. A request whose body is still being sent
// would not do: the front end hands only complete requests to a worker, so
// such a request is not "in flight" in the sense under test. To know that
// the handler runs (rather than that the bytes sit in a socket buffer), the
// test waits until rapportd has used 300 ms of CPU since the request was
// sent: an idle server uses next to none, the hash uses it all. If the
// answer comes before that, the hash was too fast to prove anything and
// the test says so.
#include <cppunit/extensions/HelperMacros.h>

#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "e2e/connections/ConnectionSuite.h"

using namespace rapport::e2e;

namespace {

constexpr const char* kSlowIterations = "150";
constexpr long kBusyCpuMs = 300;

// CPU time (user + system) process `pid` has used, in milliseconds, from
// /proc/<pid>/stat (fields 14 and 15, in clock ticks).
long cpuMilliseconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name (field 2) may hold spaces: count fields after its ')'.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  long ticks = 0;
  for (int number = 3; number <= 15 && fields >> field; ++number) {
    if (number >= 14) ticks += std::stol(field);
  }
  return ticks * 1000 / ::sysconf(_SC_CLK_TCK);
}

}  // namespace

class DrainTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DrainTest);
  CPPUNIT_TEST(testRequestInFlightIsAnsweredThenExitZero);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRequestInFlightIsAnsweredThenExitZero() {
    ServerProcess server(generousSettings({{"auth.argon2.iterations", kSlowIterations}}));
    RawConnection connection(server.port());
    // A first exchange: the connection is accepted and known to the server.
    connection.send(kVersionsRequest);
    E2E_ASSERT_DATA(200, connection.readResponse(std::chrono::seconds(5)));

    Account account;
    account.name = "Late Request";
    account.email = uniqueEmail("drain");
    account.password = "correct horse battery";
    account.companyName = "Drain Ltd";
    const std::string body = registrationBody(account).dump();
    const long before = cpuMilliseconds(server.pid());
    connection.send(
        "POST /v1/auth/register HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: application/json\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body);
    const bool hashing = waitUntil(
        [&] {
          return cpuMilliseconds(server.pid()) - before >= kBusyCpuMs ||
                 connection.readable(std::chrono::milliseconds(0));
        },
        std::chrono::seconds(20));
    CPPUNIT_ASSERT_MESSAGE("rapportd never got busy with the request", hashing);
    CPPUNIT_ASSERT_MESSAGE(
        "answered before SIGTERM: the hash is too fast to keep the request "
        "in flight; raise auth.argon2.iterations",
        !connection.readable(std::chrono::milliseconds(0)));

    server.sendSignal(SIGTERM);
    const HttpResult answer = connection.readResponse(std::chrono::seconds(30));
    const Json data = E2E_ASSERT_DATA(201, answer);
    CPPUNIT_ASSERT_MESSAGE(describe(answer), data["token"].isString());
    CPPUNIT_ASSERT_MESSAGE("no Connection: close while draining\n" + describe(answer),
                           saysClose(answer));
    CONNECTIONS_ASSERT_CLOSED_SILENTLY(connection, std::chrono::seconds(10));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), 0, server.waitForExit(std::chrono::seconds(30)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DrainTest);
