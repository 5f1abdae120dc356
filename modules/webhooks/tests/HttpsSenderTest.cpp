// The HTTPS sender against real in-test HTTPS receivers (Poco HTTPServer
// over a SecureServerSocket, certificates from a throw-away CA): exact
// headers and a signature checked by the openssl command, statuses, the
// deadline, the read cap, certificate checks, keep-alive, the guard.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "WebhooksTestSupport.h"
#include "delivery/HttpsSender.h"

using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;
using rapport::webhooks::AttemptRequest;
using rapport::webhooks::AttemptResult;
using rapport::webhooks::HttpsSender;
using webhooks_test::Received;
using webhooks_test::testPki;
using webhooks_test::TestReceiver;
using namespace std::chrono_literals;

namespace {

const std::string kSecret = "whsec_dGhpcnR5LXR3by1yYW5kb20tYnl0ZXMtZm9yLXRlc3Rz";
const std::string kBody =
    "{\"id\":\"evt_0001\",\"event\":\"crm.contact.created\",\"created_at\":"
    "\"2026-01-02T03:04:05Z\",\"data\":{\"id\":\"con_1\",\"name\":\"R\\u00e9mi\"}}";

HttpsSender::Options options(std::chrono::milliseconds timeout = 5000ms) {
  HttpsSender::Options o;
  o.timeout = timeout;
  o.caFile = testPki().caFile;
  o.allowPrivateTargets = true;
  return o;
}

AttemptRequest request(const std::string& url) {
  AttemptRequest r;
  r.url = url;
  r.deliveryId = "whd_0001";
  r.event = "crm.contact.created";
  r.body = kBody;
  r.secret = kSecret;
  return r;
}

void answer(HTTPServerResponse& response, HTTPResponse::HTTPStatus status,
            const std::string& body) {
  response.setStatusAndReason(status);
  response.setContentType("text/plain");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

TestReceiver::Handler ok() {
  return [](int, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver&) {
    answer(response, HTTPResponse::HTTP_OK, "thanks");
  };
}

long long millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

// Checks the signature headers of one received request with the openssl command.
void assertSigned(const Received& got, const std::string& secret) {
  const std::string signature = got.header("X-Service-Signature");
  const std::string timestamp = got.header("X-Service-Timestamp");
  CPPUNIT_ASSERT(!timestamp.empty());
  CPPUNIT_ASSERT_EQUAL(std::string("t=" + timestamp + ",v1="),
                       signature.substr(0, timestamp.size() + 6));
  const std::string v1 = signature.substr(timestamp.size() + 6);
  CPPUNIT_ASSERT_EQUAL(webhooks_test::opensslHmac(secret, timestamp + "." + got.body), v1);
  const long long t = std::stoll(timestamp);
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  CPPUNIT_ASSERT(t <= now && t >= now - 30);
}

}  // namespace

class HttpsSenderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(HttpsSenderTest);
  CPPUNIT_TEST(testSuccessExactHeadersAndSignature);
  CPPUNIT_TEST(testAddressLiteralUrl);
  CPPUNIT_TEST(testServerErrorBodyKeptToKeepBytes);
  CPPUNIT_TEST(testRedirectIsNotFollowed);
  CPPUNIT_TEST(testReceiverThatNeverAnswersTimesOut);
  CPPUNIT_TEST(testTricklingAnswerCutAtDeadline);
  CPPUNIT_TEST(testEndlessBodyCutAtReadCap);
  CPPUNIT_TEST(testCertificateForAnotherNameFails);
  CPPUNIT_TEST(testUnknownCaFails);
  CPPUNIT_TEST(testKeepAliveReusesOneConnection);
  CPPUNIT_TEST(testReusedConnectionClosedIsRetriedOnce);
  CPPUNIT_TEST(testChunkedAndUntilCloseAnswers);
  CPPUNIT_TEST(testConcurrentSendsShareThePool);
  CPPUNIT_TEST(testPrivateTargetRefusedWithoutConnecting);
  CPPUNIT_TEST(testConnectionRefused);
  CPPUNIT_TEST(testHandshakeThatNeverComesEndsAtTheDeadline);
  CPPUNIT_TEST(testRetryAfterAndTimeOutReported);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testSuccessExactHeadersAndSignature() {
    TestReceiver receiver(testPki().localhostCert, testPki().localhostKey, ok());
    HttpsSender sender(options());
    const auto before = std::chrono::system_clock::now();
    const AttemptResult result = sender.send(request(receiver.url("localhost", "/hooks/in?x=1")));
    CPPUNIT_ASSERT_EQUAL(std::string(""), result.error);
    CPPUNIT_ASSERT_EQUAL(200, result.status);
    CPPUNIT_ASSERT(result.success());
    CPPUNIT_ASSERT_EQUAL(std::string("thanks"), result.body);
    const auto attempted = std::chrono::microseconds(result.attemptedAt);
    CPPUNIT_ASSERT(attempted >= std::chrono::duration_cast<std::chrono::microseconds>(
                                    before.time_since_epoch()));

    const auto received = receiver.received();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, received.size());
    const Received& got = received.front();
    CPPUNIT_ASSERT_EQUAL(std::string("POST"), got.method);
    CPPUNIT_ASSERT_EQUAL(std::string("/hooks/in?x=1"), got.uri);
    CPPUNIT_ASSERT_EQUAL(kBody, got.body);
    const std::set<std::string> expected = {"Host",
                                            "User-Agent",
                                            "Content-Type",
                                            "Content-Length",
                                            "X-Service-Event",
                                            "X-Service-Delivery",
                                            "X-Service-Timestamp",
                                            "X-Service-Signature"};
    std::set<std::string> names;
    for (const auto& header : got.headers) names.insert(header.first);
    CPPUNIT_ASSERT(expected == names);
    CPPUNIT_ASSERT_EQUAL(expected.size(), got.headers.size());
    CPPUNIT_ASSERT_EQUAL("localhost:" + std::to_string(receiver.port()), got.header("Host"));
    CPPUNIT_ASSERT_EQUAL(std::string("Rapport-Webhooks/1.0"), got.header("User-Agent"));
    CPPUNIT_ASSERT_EQUAL(std::string("application/json"), got.header("Content-Type"));
    CPPUNIT_ASSERT_EQUAL(std::to_string(kBody.size()), got.header("Content-Length"));
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), got.header("X-Service-Event"));
    CPPUNIT_ASSERT_EQUAL(std::string("whd_0001"), got.header("X-Service-Delivery"));
    assertSigned(got, kSecret);
  }

  void testAddressLiteralUrl() {
    TestReceiver receiver(testPki().localhostCert, testPki().localhostKey, ok());
    HttpsSender sender(options());
    const AttemptResult result = sender.send(request(receiver.url("127.0.0.1")));
    CPPUNIT_ASSERT_EQUAL(std::string(""), result.error);
    CPPUNIT_ASSERT_EQUAL(200, result.status);
    CPPUNIT_ASSERT_EQUAL("127.0.0.1:" + std::to_string(receiver.port()),
                         receiver.received().front().header("Host"));
  }

  void testServerErrorBodyKeptToKeepBytes() {
    const std::string body(100, 'e');
    TestReceiver receiver(
        testPki().localhostCert, testPki().localhostKey,
        [&](int, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver&) {
          answer(response, HTTPResponse::HTTP_INTERNAL_SERVER_ERROR, body);
        });
    auto o = options();
    o.keepBytes = 16;
    HttpsSender sender(o);
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(500, result.status);
    CPPUNIT_ASSERT(!result.success());
    CPPUNIT_ASSERT_EQUAL(std::string(16, 'e'), result.body);
    CPPUNIT_ASSERT_EQUAL(std::string(""), result.error);
  }

  void testRedirectIsNotFollowed() {
    TestReceiver receiver(
        testPki().localhostCert, testPki().localhostKey,
        [](int, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver& self) {
          response.set("Location", self.url("localhost", "/elsewhere"));
          answer(response, HTTPResponse::HTTP_MOVED_PERMANENTLY, "moved");
        });
    HttpsSender sender(options());
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(301, result.status);
    CPPUNIT_ASSERT(!result.success());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, receiver.received().size());
    CPPUNIT_ASSERT_EQUAL(std::string("/hooks/in"), receiver.received().front().uri);
  }

  void testReceiverThatNeverAnswersTimesOut() {
    TestReceiver receiver(
        testPki().localhostCert, testPki().localhostKey,
        [](int, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver& self) {
          self.waitReleased(60s);
          answer(response, HTTPResponse::HTTP_OK, "too late");
        });
    HttpsSender sender(options(700ms));
    const auto start = std::chrono::steady_clock::now();
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    const long long elapsed = millisSince(start);
    CPPUNIT_ASSERT_EQUAL(0, result.status);
    CPPUNIT_ASSERT_EQUAL(std::string("timed out"), result.error);
    CPPUNIT_ASSERT(result.timedOut);
    CPPUNIT_ASSERT(elapsed >= 700);
    CPPUNIT_ASSERT(elapsed < 700 + 1000);
  }

  void testTricklingAnswerCutAtDeadline() {
    TestReceiver receiver(
        testPki().localhostCert, testPki().localhostKey,
        [](int, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver& self) {
          response.setContentLength(100);
          std::ostream& out = response.send();
          out.flush();
          // One byte every 200 ms: 20 s for the whole answer.
          for (int i = 0; i < 100 && out.good(); ++i) {
            out << 'x' << std::flush;
            if (self.waitReleased(200ms)) break;
          }
        });
    HttpsSender sender(options(1000ms));
    const auto start = std::chrono::steady_clock::now();
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    const long long elapsed = millisSince(start);
    CPPUNIT_ASSERT_EQUAL(std::string("timed out"), result.error);
    CPPUNIT_ASSERT_EQUAL(200, result.status);  // the status line came in time
    CPPUNIT_ASSERT(!result.body.empty());
    CPPUNIT_ASSERT(result.body.size() < 100);
    CPPUNIT_ASSERT(elapsed >= 1000);
    CPPUNIT_ASSERT(elapsed < 1000 + 700);
  }

  void testEndlessBodyCutAtReadCap() {
    TestReceiver receiver(
        testPki().localhostCert, testPki().localhostKey,
        [](int, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver& self) {
          response.setChunkedTransferEncoding(true);
          std::ostream& out = response.send();
          const std::string chunk(4096, 'y');
          for (int i = 0; i < 16384 && out.good() && !self.stopping(); ++i)
            out << chunk << std::flush;
        });
    auto o = options(10000ms);
    o.readCap = 64 * 1024;
    o.keepBytes = 4096;
    HttpsSender sender(o);
    const auto start = std::chrono::steady_clock::now();
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(std::string("answer larger than 65536 bytes: cut"), result.error);
    CPPUNIT_ASSERT_EQUAL(200, result.status);
    CPPUNIT_ASSERT_EQUAL(std::string(4096, 'y'), result.body);
    CPPUNIT_ASSERT(millisSince(start) < 5000);
  }

  void testCertificateForAnotherNameFails() {
    TestReceiver receiver(testPki().otherCert, testPki().otherKey, ok());
    HttpsSender sender(options());
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(0, result.status);
    CPPUNIT_ASSERT_EQUAL(std::string("TLS: certificate is not valid for localhost"), result.error);
    CPPUNIT_ASSERT(receiver.received().empty());
    const AttemptResult byAddress = sender.send(request(receiver.url("127.0.0.1")));
    CPPUNIT_ASSERT_EQUAL(std::string("TLS: certificate is not valid for 127.0.0.1"),
                         byAddress.error);
    CPPUNIT_ASSERT(receiver.received().empty());
  }

  void testUnknownCaFails() {
    // No InvalidCertificateHandler is registered anywhere in this process:
    // a certificate from a CA the sender does not trust is rejected.
    TestReceiver receiver(testPki().localhostCert, testPki().localhostKey, ok());
    auto o = options();
    o.caFile.clear();
    HttpsSender sender(o);
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(0, result.status);
    CPPUNIT_ASSERT_EQUAL(
        std::string("TLS: certificate verify failed: unable to get local issuer certificate"),
        result.error);
    CPPUNIT_ASSERT(receiver.received().empty());
  }

  void testKeepAliveReusesOneConnection() {
    TestReceiver receiver(testPki().localhostCert, testPki().localhostKey, ok());
    HttpsSender sender(options());
    auto first = request(receiver.url("localhost"));
    auto second = first;
    second.deliveryId = "whd_0002";
    second.body = "{\"id\":\"evt_0002\"}";
    second.secret = "whsec_another_secret_0123456789";
    CPPUNIT_ASSERT_EQUAL(200, sender.send(first).status);
    CPPUNIT_ASSERT_EQUAL(200, sender.send(second).status);
    CPPUNIT_ASSERT_EQUAL(1, receiver.connections());
    const auto received = receiver.received();
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, received.size());
    CPPUNIT_ASSERT_EQUAL(std::string("whd_0002"), received[1].header("X-Service-Delivery"));
    CPPUNIT_ASSERT_EQUAL(second.body, received[1].body);
    assertSigned(received[0], kSecret);
    assertSigned(received[1], second.secret);
  }

  void testReusedConnectionClosedIsRetriedOnce() {
    // The second request arrives on the kept-alive connection, which the
    // receiver then closes without a byte of answer: the sender sends it
    // again on a fresh connection.
    TestReceiver receiver(
        testPki().localhostCert, testPki().localhostKey,
        [](int index, HTTPServerRequest& request, HTTPServerResponse& response, TestReceiver&) {
          if (index == 2) {
            static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().shutdown();
            return;
          }
          answer(response, HTTPResponse::HTTP_OK, "ok " + std::to_string(index));
        });
    HttpsSender sender(options());
    const AttemptResult first = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(200, first.status);
    const AttemptResult second = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(std::string(""), second.error);
    CPPUNIT_ASSERT_EQUAL(200, second.status);
    CPPUNIT_ASSERT_EQUAL(std::string("ok 3"), second.body);
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, receiver.received().size());
    CPPUNIT_ASSERT_EQUAL(2, receiver.connections());
  }

  void testChunkedAndUntilCloseAnswers() {
    // 1: chunked, kept alive; 2: no length (read until the receiver closes);
    // 3: needs a new connection.
    TestReceiver receiver(
        testPki().localhostCert, testPki().localhostKey,
        [](int index, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver&) {
          response.setStatusAndReason(HTTPResponse::HTTP_ACCEPTED);
          if (index == 1) response.setChunkedTransferEncoding(true);
          if (index == 2) response.setKeepAlive(false);
          std::ostream& out = response.send();
          out << "abc" << std::flush << "def" << std::flush;
        });
    HttpsSender sender(options());
    const AttemptResult chunked = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(std::string(""), chunked.error);
    CPPUNIT_ASSERT_EQUAL(202, chunked.status);
    CPPUNIT_ASSERT_EQUAL(std::string("abcdef"), chunked.body);
    const AttemptResult untilClose = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(std::string(""), untilClose.error);
    CPPUNIT_ASSERT_EQUAL(202, untilClose.status);
    CPPUNIT_ASSERT_EQUAL(std::string("abcdef"), untilClose.body);
    CPPUNIT_ASSERT_EQUAL(1, receiver.connections());
    CPPUNIT_ASSERT_EQUAL(202, sender.send(request(receiver.url("localhost"))).status);
    CPPUNIT_ASSERT_EQUAL(2, receiver.connections());
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, receiver.received().size());
  }

  void testConcurrentSendsShareThePool() {
    TestReceiver receiver(testPki().localhostCert, testPki().localhostKey, ok());
    HttpsSender sender(options());
    constexpr int kThreads = 4;
    constexpr int kSends = 25;
    std::atomic<int> succeeded{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kSends; ++i) {
          if (sender.send(request(receiver.url("localhost"))).status == 200) ++succeeded;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(kThreads * kSends, succeeded.load());
    CPPUNIT_ASSERT_EQUAL(static_cast<std::size_t>(kThreads * kSends), receiver.received().size());
    // Never more connections than concurrent senders: idle ones are reused.
    CPPUNIT_ASSERT(receiver.connections() <= kThreads);
  }

  void testPrivateTargetRefusedWithoutConnecting() {
    TestReceiver receiver(testPki().localhostCert, testPki().localhostKey, ok());
    auto o = options();
    o.allowPrivateTargets = false;
    HttpsSender sender(o);
    const AttemptResult byName = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(0, byName.status);
    CPPUNIT_ASSERT_EQUAL(std::string("refused target: localhost resolves to 127.0.0.1, a "
                                     "private, loopback or reserved address"),
                         byName.error);
    const AttemptResult byAddress = sender.send(request(receiver.url("127.0.0.1")));
    CPPUNIT_ASSERT_EQUAL(0, byAddress.status);
    CPPUNIT_ASSERT_EQUAL(std::string("refused target: "), byAddress.error.substr(0, 16));
    CPPUNIT_ASSERT_EQUAL(0, receiver.connections());
    CPPUNIT_ASSERT(byName.error.find(kSecret) == std::string::npos);
  }

  void testConnectionRefused() {
    unsigned short port = 0;
    {
      Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
      port = probe.address().port();
    }
    HttpsSender sender(options());
    const AttemptResult result =
        sender.send(request("https://localhost:" + std::to_string(port) + "/hook"));
    CPPUNIT_ASSERT_EQUAL(0, result.status);
    CPPUNIT_ASSERT_EQUAL(std::string("connection refused"), result.error);
  }

  // A receiver that accepts the TCP connection and never answers the TLS
  // handshake (connections left in the listen queue: the kernel accepted
  // them, nobody speaks): the attempt gives up at its one deadline.
  void testHandshakeThatNeverComesEndsAtTheDeadline() {
    Poco::Net::ServerSocket silent(Poco::Net::SocketAddress("127.0.0.1", 0), 64);
    HttpsSender sender(options(700ms));
    const auto start = std::chrono::steady_clock::now();
    const AttemptResult result = sender.send(
        request("https://localhost:" + std::to_string(silent.address().port()) + "/hook"));
    const long long elapsed = millisSince(start);
    CPPUNIT_ASSERT_EQUAL(0, result.status);
    CPPUNIT_ASSERT_EQUAL(std::string("timed out"), result.error);
    CPPUNIT_ASSERT(result.timedOut);
    CPPUNIT_ASSERT(elapsed >= 700);
    CPPUNIT_ASSERT(elapsed < 700 + 1000);
  }

  // The answer's Retry-After comes back as sent; a time-out says so, an
  // answer does not.
  void testRetryAfterAndTimeOutReported() {
    TestReceiver receiver(testPki().localhostCert, testPki().localhostKey,
                          [](int, HTTPServerRequest&, HTTPServerResponse& response, TestReceiver&) {
                            response.set("Retry-After", "120");
                            answer(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "busy");
                          });
    HttpsSender sender(options());
    const AttemptResult result = sender.send(request(receiver.url("localhost")));
    CPPUNIT_ASSERT_EQUAL(503, result.status);
    CPPUNIT_ASSERT_EQUAL(std::string("120"), result.retryAfter);
    CPPUNIT_ASSERT(!result.timedOut);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(HttpsSenderTest);
