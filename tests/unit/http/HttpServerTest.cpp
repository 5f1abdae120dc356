// HttpServer on a real socket (port 0): status lines, Content-Length,
// 413 framing, bodiless POSTs, keep-alive reuse, more keep-alive clients than
// workers, and a stop() that lets the request in flight finish.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/StreamCopier.h>

#include <atomic>
#include <barrier>
#include <cctype>
#include <chrono>
#include <future>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http/HttpServer.h"
#include "http/ReasonPhrase.h"
#include "log/Log.h"
#include "rapport/error.h"
#include "ratelimit/MemoryRateLimitStore.h"
#include "unit/http/Fakes.h"

using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::host::HttpOptions;
using rapport::host::HttpServer;
using rapport::host::MemoryRateLimitStore;
using rapport::host::Router;
using rapport::host::VersionPolicy;

using rapport::test::publicAccess;

namespace {

struct Reply {
  int status = 0;
  std::string reason;
  std::string body;
  bool hasContentLength = false;
  std::string requestId;
};

Reply receive(Poco::Net::HTTPClientSession& session) {
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  Reply reply;
  Poco::StreamCopier::copyToString(in, reply.body);
  reply.status = response.getStatus();
  reply.reason = response.getReason();
  reply.hasContentLength = response.hasContentLength();
  reply.requestId = response.get("X-Request-Id", "");
  return reply;
}

Reply get(Poco::Net::HTTPClientSession& session, const std::string& path) {
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  session.sendRequest(request);
  return receive(session);
}

// Sends raw bytes and reads until the server closes the connection.
std::string exchangeRaw(int port, const std::string& bytes, bool halfClose = true) {
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  socket.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
  if (halfClose) socket.shutdownSend();
  std::string answer;
  char buffer[4096];
  int n = 0;
  while ((n = socket.receiveBytes(buffer, sizeof buffer)) > 0) answer.append(buffer, n);
  return answer;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A handler that holds its request until released, to observe stop().
struct SlowGate {
  std::latch entered{1};
  std::latch release{1};
  std::atomic<bool> finished{false};
};

}  // namespace

class HttpServerTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(HttpServerTest);
  CPPUNIT_TEST(testReasonPhrases);
  CPPUNIT_TEST(testStatusLineAndContentLength);
  CPPUNIT_TEST(testPostBodyRoundTrip);
  CPPUNIT_TEST(testPostWithoutFramingHasEmptyBody);
  CPPUNIT_TEST(testTooLargeByContentLength);
  CPPUNIT_TEST(testTooLargeBodySent);
  CPPUNIT_TEST(testTooLargeChunked);
  CPPUNIT_TEST(testKeepAliveReusesConnection);
  CPPUNIT_TEST(testConcurrentKeepAliveClients);
  CPPUNIT_TEST(testStopWaitsForRequestInFlight);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    rapport::host::log::setLevel(rapport::host::log::Level::Error);
    gate_ = std::make_shared<SlowGate>();
    router_ = std::make_unique<Router>();
    policy_ = std::make_unique<VersionPolicy>(rapport::test::FakeConfig{});
    router_->add(
        "GET", "/v1/ping",
        [](const Request&) {
          return Response::ok(Json::object({{"pong", true}}));
        },
        publicAccess(), "test");
    router_->add(
        "GET", "/v1/invalid",
        [](const Request&) -> Response {
          throw rapport::Error::invalidField("email", "The email must be a valid email address.");
        },
        publicAccess(), "test");
    router_->add(
        "POST", "/v1/echo",
        [](const Request& request) {
          return Response::created(Json::object({{"received", request.body}}));
        },
        publicAccess(), "test");
    router_->add(
        "GET", "/v1/slow",
        [gate = gate_](const Request&) {
          gate->entered.count_down();
          gate->release.wait();
          gate->finished = true;
          return Response::ok(Json::object({{"slow", true}}));
        },
        publicAccess(), "test");
  }

  void tearDown() override {
    if (server_) server_->stop();
    server_.reset();
  }

  void testReasonPhrases() {
    using rapport::host::reasonPhrase;
    CPPUNIT_ASSERT_EQUAL(std::string("Unprocessable Entity"), reasonPhrase(422));
    CPPUNIT_ASSERT_EQUAL(std::string("Too Many Requests"), reasonPhrase(429));
    CPPUNIT_ASSERT_EQUAL(std::string("Gone"), reasonPhrase(410));
    CPPUNIT_ASSERT_EQUAL(std::string("Length Required"), reasonPhrase(411));
    CPPUNIT_ASSERT_EQUAL(std::string("Payload Too Large"), reasonPhrase(413));
    CPPUNIT_ASSERT_EQUAL(std::string("Method Not Allowed"), reasonPhrase(405));
    CPPUNIT_ASSERT_EQUAL(std::string("Service Unavailable"), reasonPhrase(503));
    CPPUNIT_ASSERT_EQUAL(std::string("Created"), reasonPhrase(201));
    CPPUNIT_ASSERT_EQUAL(std::string("Client Error"), reasonPhrase(499));
  }

  void testStatusLineAndContentLength() {
    start();
    Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(server_->port()));
    CPPUNIT_ASSERT(server_->port() > 0);
    const Reply invalid = get(session, "/v1/invalid");
    CPPUNIT_ASSERT_EQUAL(422, invalid.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Unprocessable Entity"), invalid.reason);
    CPPUNIT_ASSERT(invalid.hasContentLength);
    CPPUNIT_ASSERT(Json::parse(invalid.body).contains("errors"));
    const Reply ok = get(session, "/v1/ping");
    CPPUNIT_ASSERT_EQUAL(200, ok.status);
    CPPUNIT_ASSERT_EQUAL(std::string("OK"), ok.reason);
    CPPUNIT_ASSERT(ok.hasContentLength);
    CPPUNIT_ASSERT(!ok.requestId.empty());
    const Reply missing = get(session, "/v1/missing");
    CPPUNIT_ASSERT_EQUAL(404, missing.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Not Found"), missing.reason);
    CPPUNIT_ASSERT(missing.hasContentLength);
    // HEAD is not routed; the 405 answer carries no body.
    Poco::Net::HTTPRequest head(Poco::Net::HTTPRequest::HTTP_HEAD, "/v1/ping",
                                Poco::Net::HTTPMessage::HTTP_1_1);
    session.sendRequest(head);
    Poco::Net::HTTPResponse headResponse;
    session.receiveResponse(headResponse);
    CPPUNIT_ASSERT_EQUAL(405, static_cast<int>(headResponse.getStatus()));
    CPPUNIT_ASSERT_EQUAL(std::string("GET"), headResponse.get("Allow"));
  }

  void testPostBodyRoundTrip() {
    start();
    Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(server_->port()));
    const std::string body = "{\"name\":\"Ann\"}";
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/v1/echo",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    session.sendRequest(request) << body;
    const Reply reply = receive(session);
    CPPUNIT_ASSERT_EQUAL(201, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"),
                         Json::parse(reply.body)["data"]["received"]["name"].asString());
    // Chunked framing works for bodies within the cap.
    Poco::Net::HTTPRequest chunked(Poco::Net::HTTPRequest::HTTP_POST, "/v1/echo",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    chunked.setChunkedTransferEncoding(true);
    session.sendRequest(chunked) << body;
    CPPUNIT_ASSERT_EQUAL(201, receive(session).status);
  }

  // RFC 9112 section 6.3: a request with neither Content-Length nor chunked
  // framing has an empty body (null for the handler); the handler runs at once (nothing waits for
  // the connection to close) and the connection serves the next request.
  void testPostWithoutFramingHasEmptyBody() {
    start();
    const std::string answer = exchangeRaw(server_->port(),
                                           "POST /v1/echo HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                           "GET /v1/ping HTTP/1.1\r\nHost: localhost\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 201 Created\r\n"), answer.substr(0, 22));
    CPPUNIT_ASSERT_MESSAGE(answer, answer.find("\"received\":null") != std::string::npos);
    CPPUNIT_ASSERT(answer.find("HTTP/1.1 200 OK\r\n", 22) != std::string::npos);
  }

  void testTooLargeByContentLength() {
    start();
    // Only the headers: the answer must come without the body being read.
    const std::string answer = exchangeRaw(
        server_->port(),
        "POST /v1/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2097152\r\n\r\n", false);
    CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 413 Payload Too Large\r\n"), answer.substr(0, 32));
    CPPUNIT_ASSERT(lower(answer).find("connection: close") != std::string::npos);
  }

  void testTooLargeBodySent() {
    start();
    Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(server_->port()));
    const std::string body(2 * 1024 * 1024, 'x');
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/v1/echo",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    session.sendRequest(request) << body;
    const Reply reply = receive(session);
    CPPUNIT_ASSERT_EQUAL(413, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Payload too large.\"}"), reply.body);
  }

  void testTooLargeChunked() {
    start();
    Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(server_->port()));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/v1/echo",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setChunkedTransferEncoding(true);
    session.sendRequest(request) << std::string(1048576 + 1, 'x');
    CPPUNIT_ASSERT_EQUAL(413, receive(session).status);
  }

  void testKeepAliveReusesConnection() {
    start();
    Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(server_->port()));
    session.setKeepAlive(true);
    CPPUNIT_ASSERT_EQUAL(200, get(session, "/v1/ping").status);
    const auto localPort = session.socket().address().port();
    for (int i = 0; i < 5; ++i) {
      CPPUNIT_ASSERT_EQUAL(200, get(session, "/v1/ping").status);
      CPPUNIT_ASSERT(session.connected());
      CPPUNIT_ASSERT_EQUAL(localPort, session.socket().address().port());
    }
  }

  void testConcurrentKeepAliveClients() {
    constexpr int kClients = 8;
    start(1);
    // Every client holds its connection open between two requests, with one
    // worker: a waiting connection holds no thread, so each is answered.
    std::barrier allConnected(kClients);
    std::atomic<int> answered{0};
    std::vector<std::thread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&] {
        Poco::Net::HTTPClientSession session("127.0.0.1",
                                             static_cast<Poco::UInt16>(server_->port()));
        session.setKeepAlive(true);
        session.setTimeout(Poco::Timespan(3, 0));  // under the 5 s keep-alive time-out
        try {
          if (get(session, "/v1/ping").status == 200) ++answered;
          allConnected.arrive_and_wait();
          if (get(session, "/v1/ping").status == 200) ++answered;
        } catch (const Poco::Exception&) {
          // counted as unanswered
        }
      });
    }
    for (auto& client : clients) client.join();
    CPPUNIT_ASSERT_EQUAL(2 * kClients, answered.load());
  }

  void testStopWaitsForRequestInFlight() {
    start();
    const int port = server_->port();
    std::promise<int> statusPromise;
    std::future<int> status = statusPromise.get_future();
    std::thread client([port, &statusPromise] {
      try {
        Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
        session.setTimeout(Poco::Timespan(20, 0));
        statusPromise.set_value(get(session, "/v1/slow").status);
      } catch (...) {
        statusPromise.set_value(-1);
      }
    });
    gate_->entered.wait();
    std::atomic<bool> finishedBeforeStopReturned{false};
    std::promise<void> stopped;
    std::future<void> stopDone = stopped.get_future();
    std::thread stopper([&] {
      server_->stop();
      finishedBeforeStopReturned = gate_->finished.load();
      stopped.set_value();
    });
    // While the handler is held, stop() must not return.
    CPPUNIT_ASSERT(stopDone.wait_for(std::chrono::milliseconds(300)) ==
                   std::future_status::timeout);
    gate_->release.count_down();
    stopDone.wait();
    stopper.join();
    client.join();
    CPPUNIT_ASSERT(finishedBeforeStopReturned.load());
    CPPUNIT_ASSERT_EQUAL(200, status.get());
    // No longer accepting.
    CPPUNIT_ASSERT_THROW(Poco::Net::StreamSocket(Poco::Net::SocketAddress("127.0.0.1", port)),
                         Poco::Net::NetException);
  }

 private:
  void start(int threads = 8) {
    HttpOptions options;
    options.port = 0;
    options.threads = threads;
    options.maxQueued = 16;
    options.ioThreads = 1;
    pipeline_ = std::make_unique<rapport::host::Pipeline>(*router_, auth_, store_, *policy_);
    server_ = std::make_unique<HttpServer>(options, *pipeline_);
    server_->start();
  }

  std::shared_ptr<SlowGate> gate_;
  rapport::test::FakeAuthenticator auth_;
  MemoryRateLimitStore store_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<VersionPolicy> policy_;
  std::unique_ptr<rapport::host::Pipeline> pipeline_;
  std::unique_ptr<HttpServer> server_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(HttpServerTest);
