// SIGTERM (decisions §12): stop accepting, finish the requests in flight,
// exit 0.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/SocketStream.h>
#include <Poco/Net/StreamSocket.h>

#include <csignal>

#include "e2e/common/Api.h"

using namespace rapport::e2e;

namespace {

// One keep-alive connection written byte for byte, read with Poco's parser.
class RawConnection {
 public:
  explicit RawConnection(int port)
      : socket_(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port))),
        stream_(socket_) {
    socket_.setReceiveTimeout(Poco::Timespan(15, 0));
  }

  void write(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const int n = socket_.sendBytes(bytes.data() + sent, static_cast<int>(bytes.size() - sent));
      CPPUNIT_ASSERT_MESSAGE("connection closed while sending", n > 0);
      sent += static_cast<std::size_t>(n);
    }
  }

  // Reads one response (an interim 1xx one included) with its body.
  HttpResult read() {
    Poco::Net::HTTPResponse response;
    response.read(stream_);
    HttpResult result;
    result.status = static_cast<int>(response.getStatus());
    result.reason = response.getReason();
    for (const auto& [name, value] : response) result.headers[name] = value;
    if (response.hasContentLength()) {
      std::string body(static_cast<std::size_t>(response.getContentLength64()), '\0');
      stream_.read(body.data(), static_cast<std::streamsize>(body.size()));
      body.resize(static_cast<std::size_t>(stream_.gcount()));
      result.body = std::move(body);
    }
    return result;
  }

 private:
  Poco::Net::StreamSocket socket_;
  Poco::Net::SocketStream stream_;
};

}  // namespace

class ShutdownTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ShutdownTest);
  CPPUNIT_TEST(testSigtermAfterTrafficExitsZero);
  CPPUNIT_TEST(testSigtermFinishesTheRequestInFlight);
  CPPUNIT_TEST(testSigintExitsZero);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testSigtermAfterTrafficExitsZero() {
    ServerProcess server(probeSettings());
    {
      HttpClient client(server.port());
      const Account account = registerUser(client, "traffic");
      E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
      E2E_ASSERT_DATA(201, client.post("/v1/probe/notes", Json::object({{"body", "x"}}),
                                       bearer(account.token)));
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), 0, server.stop());
  }

  // The request is in flight for certain: the server has parsed its headers
  // and answered "100 Continue" (its handler runs and waits for the body)
  // before SIGTERM is sent; the body follows only once the server logged
  // that it is shutting down.
  void testSigtermFinishesTheRequestInFlight() {
    ServerProcess server(generousSettings());
    RawConnection connection(server.port());
    // A first exchange: the connection is accepted and served by a worker.
    connection.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    E2E_ASSERT_STATUS(200, connection.read());

    Account account;
    account.name = "Late Request";
    account.email = uniqueEmail("inflight");
    account.password = "correct horse";
    account.companyName = "In Flight Ltd";
    const std::string body = registrationBody(account).dump();
    connection.write(
        "POST /v1/auth/register HTTP/1.1\r\n"
        "Host: 127.0.0.1\r\n"
        "Content-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) +
        "\r\n"
        "Expect: 100-continue\r\n"
        "\r\n");
    const HttpResult interim = connection.read();
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(interim), 100, interim.status);

    server.sendSignal(SIGTERM);
    const bool stopping =
        waitUntil([&] { return server.log().find("shutting down") != std::string::npos; },
                  std::chrono::seconds(10));
    CPPUNIT_ASSERT_MESSAGE("no shutdown logged:\n" + server.log(), stopping);

    connection.write(body);
    const HttpResult answer = connection.read();
    const Json data = E2E_ASSERT_DATA(201, answer);
    CPPUNIT_ASSERT_MESSAGE(describe(answer), data["token"].isString());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), 0, server.waitForExit(std::chrono::seconds(30)));
  }

  // README: SIGTERM (or SIGINT) stops the server with exit code 0.
  void testSigintExitsZero() {
    ServerProcess server(generousSettings());
    {
      HttpClient client(server.port());
      E2E_ASSERT_STATUS(200, client.get("/healthz"));
    }
    server.sendSignal(SIGINT);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), 0, server.waitForExit(std::chrono::seconds(30)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ShutdownTest);
