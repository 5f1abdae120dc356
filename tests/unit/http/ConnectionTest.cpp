// The front end's connections (http/server: Connection, EventLoop,
// WorkerPool) on a real socket, in raw bytes: refusals answered in the API's
// shape; keep-alive, pipelining and 100-continue; the deadlines (408, silent
// closes) and the limits (shedding, 503) with short limits; a stop that lets
// the request in flight finish.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/HttpServer.h"
#include "http/Pipeline.h"
#include "log/Log.h"
#include "rapport/json.h"
#include "ratelimit/MemoryRateLimitStore.h"
#include "unit/http/Fakes.h"

using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::host::HttpOptions;
using rapport::host::HttpServer;
using rapport::host::MemoryRateLimitStore;
using rapport::host::Pipeline;
using rapport::host::Router;
using rapport::host::VersionPolicy;

using rapport::test::publicAccess;

namespace {

constexpr std::size_t kMaxBody = 1024;

struct Reply {
  int status = 0;
  std::string reason;
  rapport::Headers headers;
  std::string body;

  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// One client connection speaking raw bytes, reading replies by their
// Content-Length.
class RawClient {
 public:
  explicit RawClient(int port)
      : socket_(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port))) {
    socket_.setReceiveTimeout(Poco::Timespan(10, 0));
  }

  void send(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      sent += static_cast<std::size_t>(
          socket_.sendBytes(bytes.data() + sent, static_cast<int>(bytes.size() - sent)));
    }
  }

  // `withBody` false: the answer to a HEAD, whose Content-Length announces
  // bytes that are not sent.
  Reply read(bool withBody = true) {
    Reply reply;
    const std::string status = line();
    CPPUNIT_ASSERT_MESSAGE("no status line", status.rfind("HTTP/1.1 ", 0) == 0);
    reply.status = std::stoi(status.substr(9, 3));
    reply.reason = status.substr(13);
    for (std::string field = line(); !field.empty(); field = line()) {
      const std::size_t colon = field.find(':');
      reply.headers[field.substr(0, colon)] = field.substr(colon + 2);
    }
    const std::string length = reply.header("Content-Length");
    if (withBody && !length.empty()) {
      for (std::size_t n = std::stoul(length); n > 0; --n) reply.body += next();
    }
    return reply;
  }

  // Whether bytes (or the end) arrive within `limit`.
  bool readable(std::chrono::milliseconds limit) {
    if (position_ < buffer_.size()) return true;
    return socket_.poll(Poco::Timespan(std::chrono::microseconds(limit).count()),
                        Poco::Net::Socket::SELECT_READ);
  }

  // Whether the server closed the connection, with nothing more sent.
  bool closedByServer() {
    try {
      return available() == 0;
    } catch (const Poco::Exception&) {
      return true;  // a reset
    }
  }

 private:
  std::size_t available() {
    if (position_ < buffer_.size()) return buffer_.size() - position_;
    char chunk[4096];
    const int n = socket_.receiveBytes(chunk, sizeof chunk);
    if (n <= 0) return 0;
    buffer_.assign(chunk, static_cast<std::size_t>(n));
    position_ = 0;
    return buffer_.size();
  }

  char next() {
    if (available() == 0) throw Poco::Net::NetException("connection closed mid-reply");
    return buffer_[position_++];
  }

  std::string line() {
    std::string out;
    for (char c = next(); c != '\n'; c = next()) out += c;
    if (!out.empty() && out.back() == '\r') out.pop_back();
    return out;
  }

  Poco::Net::StreamSocket socket_;
  std::string buffer_;
  std::size_t position_ = 0;
};

// Holds /v1/slow until released.
class Gate {
 public:
  void pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    entered_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  bool waitEntered() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [this] { return entered_; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool entered_ = false;
  bool open_ = false;
};

}  // namespace

class ConnectionTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ConnectionTest);
  CPPUNIT_TEST(testMalformedRequestLineGetsTheEnvelope);
  CPPUNIT_TEST(testRefusalsCountAgainstTheClientAddress);
  CPPUNIT_TEST(testEveryRefusalGetsTheEnvelope);
  CPPUNIT_TEST(testKeepAliveServesSeveralRequests);
  CPPUNIT_TEST(testPipelinedRequests);
  CPPUNIT_TEST(testHeadAnswerHasNoBody);
  CPPUNIT_TEST(testHttp10);
  CPPUNIT_TEST(testContinueOnlyWhenTheBodyIsRead);
  CPPUNIT_TEST(testStopDrainsTheRequestInFlight);
  CPPUNIT_TEST(testSlowHeadIsAnswered408);
  CPPUNIT_TEST(testSilentConnectionIsClosedWithoutAnswer);
  CPPUNIT_TEST(testIdleKeepAliveConnectionIsClosed);
  CPPUNIT_TEST(testStalledBodyIsAnswered408);
  CPPUNIT_TEST(testSteadyHeadWithinTheDeadlineIsServed);
  CPPUNIT_TEST(testIdleConnectionsHoldNoWorker);
  CPPUNIT_TEST(testLeastRecentlyActiveConnectionIsShed);
  CPPUNIT_TEST(testNothingToShedAnswers503);
  CPPUNIT_TEST(testAddressCapAnswers503);
  CPPUNIT_TEST(testTrickledBodyGets408AtItsDeadline);
  CPPUNIT_TEST(testSlowestBodyIsShedWhenNoneIsIdle);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    rapport::host::log::setLevel(rapport::host::log::Level::Error);
    gate_ = std::make_shared<Gate>();
    router_ = std::make_unique<Router>();
    router_->add(
        "GET", "/v1/ping", [](const Request&) { return Response::ok(Json::object()); },
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
          gate->pass();
          return Response::ok(Json::object());
        },
        publicAccess(), "test");
    policy_ = std::make_unique<VersionPolicy>(rapport::test::FakeConfig{});
    pipeline_ = std::make_unique<Pipeline>(*router_, auth_, store_, *policy_);

    restart(options());
  }

  void tearDown() override {
    gate_->open();
    server_->stop();
    server_.reset();
  }

  void testMalformedRequestLineGetsTheEnvelope() {
    RawClient client(port_);
    client.send("GARBAGE\r\n\r\n");
    const Reply reply = client.read();
    CPPUNIT_ASSERT_EQUAL(400, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Bad Request"), reply.reason);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Malformed request.\"}"), reply.body);
    CPPUNIT_ASSERT_EQUAL(std::to_string(reply.body.size()), reply.header("Content-Length"));
    CPPUNIT_ASSERT_EQUAL(std::string("application/json; charset=utf-8"),
                         reply.header("Content-Type"));
    CPPUNIT_ASSERT(!reply.header("X-Request-Id").empty());
    CPPUNIT_ASSERT_EQUAL(std::string("60"), reply.header("X-RateLimit-Limit"));
    CPPUNIT_ASSERT_EQUAL(std::string("59"), reply.header("X-RateLimit-Remaining"));
    CPPUNIT_ASSERT(!reply.header("X-RateLimit-Reset").empty());
    CPPUNIT_ASSERT(!reply.header("Date").empty());
    CPPUNIT_ASSERT_EQUAL(std::string("close"), reply.header("Connection"));
    CPPUNIT_ASSERT(client.closedByServer());
  }

  // The same budget as the client's well-formed requests.
  void testRefusalsCountAgainstTheClientAddress() {
    for (const char* expected : {"59", "58"}) {
      RawClient client(port_);
      client.send("NOT HTTP AT ALL\r\n\r\n");
      CPPUNIT_ASSERT_EQUAL(std::string(expected), client.read().header("X-RateLimit-Remaining"));
    }
    RawClient client(port_);
    client.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("57"), client.read().header("X-RateLimit-Remaining"));
  }

  void testEveryRefusalGetsTheEnvelope() {
    const std::string ping = "GET /v1/ping HTTP/1.1\r\nHost: x\r\n";
    const struct {
      std::string request;
      int status;
      std::string reason;
    } cases[] = {
        {"GET /v1/ping FOO\r\n\r\n", 400, "Bad Request"},
        {"GET /v1/ping HTTP/2.0\r\n\r\n", 505, "HTTP Version Not Supported"},
        {ping + "NoColon\r\n\r\n", 400, "Bad Request"},
        {ping + "Accept : */*\r\n\r\n", 400, "Bad Request"},
        {ping + "X: a\r\n folded\r\n\r\n", 400, "Bad Request"},
        {"GET /" + std::string(20000, 'a') + " HTTP/1.1\r\n\r\n", 414, "URI Too Long"},
        {ping + "X-Big: " + std::string(20000, 'a') + "\r\n\r\n", 431,
         "Request Header Fields Too Large"},
        {"POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}", 400, "Bad Request"},
        {"POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
         "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
         400, "Bad Request"},
        {"POST /v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
         "zz\r\n{\"a\":1}\r\n0\r\n\r\n",
         400, "Bad Request"},
        {"POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n", 413,
         "Payload Too Large"},
        {"GET /v1/ping HTTP/1.1\nHost: x\n\n", 400, "Bad Request"},
        {ping + "\n", 400, "Bad Request"},
        {"GET /v1/ping HTTP/1.1\r\n\r\n", 400, "Bad Request"},
        {ping + "Host: y\r\n\r\n", 400, "Bad Request"},
    };
    for (const auto& item : cases) {
      const std::string what = item.request.substr(0, 60);
      RawClient client(port_);
      client.send(item.request);
      const Reply reply = client.read();
      CPPUNIT_ASSERT_EQUAL_MESSAGE(what, item.status, reply.status);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(what, item.reason, reply.reason);
      const Json body = Json::parse(reply.body);
      CPPUNIT_ASSERT_MESSAGE(what, body["message"].isString());
      CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(1), body.size());
      CPPUNIT_ASSERT_MESSAGE(what, !reply.header("X-Request-Id").empty());
      CPPUNIT_ASSERT_MESSAGE(what, !reply.header("X-RateLimit-Remaining").empty());
      CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::string("close"), reply.header("Connection"));
      CPPUNIT_ASSERT_MESSAGE(what, client.closedByServer());
    }
  }

  void testKeepAliveServesSeveralRequests() {
    RawClient client(port_);
    for (int i = 0; i < 3; ++i) {
      client.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
      const Reply reply = client.read();
      CPPUNIT_ASSERT_EQUAL(200, reply.status);
      CPPUNIT_ASSERT_EQUAL(std::string("keep-alive"), reply.header("Connection"));
    }
    // A chunked body read to its end keeps the connection too.
    client.send(
        "POST /v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n");
    const Reply echoed = client.read();
    CPPUNIT_ASSERT_EQUAL(201, echoed.status);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         Json::parse(echoed.body)["data"]["received"]["a"].asInt());
    client.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const Reply last = client.read();
    CPPUNIT_ASSERT_EQUAL(200, last.status);
    CPPUNIT_ASSERT_EQUAL(std::string("close"), last.header("Connection"));
    CPPUNIT_ASSERT(client.closedByServer());
  }

  // Requests sent back to back in one write are answered in order: no body
  // read swallows the next request.
  void testPipelinedRequests() {
    RawClient client(port_);
    client.send(
        "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{\"n\":1}"
        "POST /v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "7\r\n{\"n\":2}\r\n0\r\n\r\n"
        "GET /v1/missing HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         Json::parse(client.read().body)["data"]["received"]["n"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2),
                         Json::parse(client.read().body)["data"]["received"]["n"].asInt());
    CPPUNIT_ASSERT_EQUAL(404, client.read().status);
  }

  // HEAD is not routed (405): its answer has a Content-Length but no body,
  // so the next answer on the connection starts where it should.
  void testHeadAnswerHasNoBody() {
    RawClient client(port_);
    client.send(
        "HEAD /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n"
        "GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    const Reply first = client.read(false);
    CPPUNIT_ASSERT_EQUAL(405, first.status);
    CPPUNIT_ASSERT(std::stoul(first.header("Content-Length")) > 0);
    CPPUNIT_ASSERT_EQUAL(200, client.read().status);
  }

  void testHttp10() {
    RawClient once(port_);
    once.send("GET /v1/ping HTTP/1.0\r\n\r\n");
    const Reply reply = once.read();
    CPPUNIT_ASSERT_EQUAL(200, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("close"), reply.header("Connection"));
    CPPUNIT_ASSERT(once.closedByServer());

    RawClient kept(port_);
    for (int i = 0; i < 2; ++i) {
      kept.send("GET /v1/ping HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
      CPPUNIT_ASSERT_EQUAL(std::string("keep-alive"), kept.read().header("Connection"));
    }
  }

  void testContinueOnlyWhenTheBodyIsRead() {
    RawClient client(port_);
    client.send(
        "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n"
        "Expect: 100-continue\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(100, client.read().status);
    client.send("{\"n\":3}");
    const Reply reply = client.read();
    CPPUNIT_ASSERT_EQUAL(201, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), Json::parse(reply.body)["data"]["received"]["n"].asInt());

    // Refused on its headers: no 100, the body is never asked for.
    RawClient large(port_);
    large.send(
        "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n"
        "Expect: 100-continue\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(413, large.read().status);
    CPPUNIT_ASSERT(large.closedByServer());
  }

  void testStopDrainsTheRequestInFlight() {
    RawClient idle(port_);
    idle.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(200, idle.read().status);
    RawClient busy(port_);
    busy.send("GET /v1/slow HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT(gate_->waitEntered());

    auto stopped = std::async(std::launch::async, [this] { return server_->stop(); });
    // While the request is held, stop() must not return.
    CPPUNIT_ASSERT(stopped.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
    gate_->open();
    CPPUNIT_ASSERT(stopped.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    CPPUNIT_ASSERT(stopped.get());
    // Answered in full, told the connection ends, then closed.
    const Reply reply = busy.read();
    CPPUNIT_ASSERT_EQUAL(200, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("close"), reply.header("Connection"));
    CPPUNIT_ASSERT(busy.closedByServer());
    // The idle keep-alive connection was closed without waiting out its time-out.
    CPPUNIT_ASSERT(idle.closedByServer());
  }

  // A head that does not arrive whole within header_timeout: 408 in the
  // API's shape, then the connection closes.
  void testSlowHeadIsAnswered408() {
    HttpOptions o = options();
    o.limits.header = std::chrono::milliseconds(300);
    restart(o);
    RawClient client(port_);
    client.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n");
    const Reply reply = client.read();
    CPPUNIT_ASSERT_EQUAL(408, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Request Timeout"), reply.reason);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"The request did not arrive in time.\"}"),
                         reply.body);
    CPPUNIT_ASSERT(!reply.header("X-Request-Id").empty());
    CPPUNIT_ASSERT_EQUAL(std::string("close"), reply.header("Connection"));
    CPPUNIT_ASSERT(client.closedByServer());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), server_->stats().headerTimeouts.load());
  }

  // Nothing sent at all: nothing to answer, the connection just closes.
  void testSilentConnectionIsClosedWithoutAnswer() {
    HttpOptions o = options();
    o.limits.header = std::chrono::milliseconds(300);
    restart(o);
    RawClient client(port_);
    CPPUNIT_ASSERT(client.closedByServer());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), server_->stats().idleClosed.load());
  }

  void testIdleKeepAliveConnectionIsClosed() {
    HttpOptions o = options();
    o.limits.keepAlive = std::chrono::milliseconds(300);
    restart(o);
    RawClient client(port_);
    client.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("keep-alive"), client.read().header("Connection"));
    CPPUNIT_ASSERT(client.closedByServer());
  }

  void testStalledBodyIsAnswered408() {
    HttpOptions o = options();
    o.limits.body = std::chrono::milliseconds(300);
    restart(o);
    RawClient client(port_);
    client.send("POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a\"");
    const Reply reply = client.read();
    CPPUNIT_ASSERT_EQUAL(408, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("close"), reply.header("Connection"));
    CPPUNIT_ASSERT(client.closedByServer());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), server_->stats().bodyTimeouts.load());
  }

  // One byte at a time, the last one well within the deadline.
  void testSteadyHeadWithinTheDeadlineIsServed() {
    HttpOptions o = options();
    o.limits.header = std::chrono::seconds(5);
    restart(o);
    RawClient client(port_);
    for (const char c : std::string("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n")) {
      client.send(std::string(1, c));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // pacing, not waiting
    }
    CPPUNIT_ASSERT_EQUAL(200, client.read().status);
  }

  // One worker, many connections that hold on to their keep-alive: every
  // client is still answered, since waiting costs no thread.
  void testIdleConnectionsHoldNoWorker() {
    HttpOptions o = options();
    o.threads = 1;
    o.maxQueued = 64;  // all 50 may speak at once
    restart(o);
    std::vector<std::unique_ptr<RawClient>> idle;
    for (int i = 0; i < 50; ++i) {
      idle.push_back(std::make_unique<RawClient>(port_));
      if (i % 2 == 0) idle.back()->send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n");  // never ends
    }
    RawClient client(port_);
    client.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(200, client.read().status);
    // And every one of them, when it finally speaks.
    for (auto& other : idle) {
      other->send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    for (std::size_t i = 0; i < idle.size(); ++i) {
      CPPUNIT_ASSERT_EQUAL(i % 2 == 0 ? 400 : 200, idle[i]->read().status);
    }
  }

  // At max_connections, a new client closes the connection whose client
  // has been quiet the longest, and is served.
  void testLeastRecentlyActiveConnectionIsShed() {
    HttpOptions o = options();
    o.limits.maxConnections = 3;
    restart(o);
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < 3; ++i) {
      clients.push_back(std::make_unique<RawClient>(port_));
      clients.back()->send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
      CPPUNIT_ASSERT_EQUAL(200, clients.back()->read().status);
    }
    // The first becomes the most recently active: the second is the oldest.
    clients[0]->send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(200, clients[0]->read().status);
    RawClient late(port_);
    late.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(200, late.read().status);
    CPPUNIT_ASSERT(clients[1]->closedByServer());
    for (const std::size_t kept : {std::size_t(0), std::size_t(2)}) {
      clients[kept]->send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
      CPPUNIT_ASSERT_EQUAL(200, clients[kept]->read().status);
    }
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), server_->stats().shed.load());
  }

  // A connection whose request a worker holds is never shed: the new
  // client is refused instead.
  void testNothingToShedAnswers503() {
    HttpOptions o = options();
    o.limits.maxConnections = 1;
    restart(o);
    RawClient busy(port_);
    busy.send("GET /v1/slow HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT(gate_->waitEntered());
    RawClient refused(port_);
    const Reply reply = refused.read();
    assertRefusal(reply);
    CPPUNIT_ASSERT(refused.closedByServer());
    gate_->open();
    CPPUNIT_ASSERT_EQUAL(200, busy.read().status);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), server_->stats().refusedFull.load());
  }

  // server.body_timeout is a total from the end of the head: a byte every
  // 100 ms does not move it (it was a silence, which each byte reset).
  void testTrickledBodyGets408AtItsDeadline() {
    HttpOptions o = options();
    o.limits.body = std::chrono::milliseconds(600);
    restart(o);
    RawClient client(port_);
    const std::string body = jsonBody(100);
    client.send("POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
    const auto headSent = std::chrono::steady_clock::now();
    std::size_t sent = 0;
    // Until the server speaks; the whole body would take 10 s at this pace.
    while (!client.readable(std::chrono::milliseconds(100))) {
      CPPUNIT_ASSERT_MESSAGE("the body was trickled to its last byte without an answer",
                             sent + 1 < body.size());
      client.send(body.substr(sent++, 1));
    }
    const auto answered = std::chrono::steady_clock::now();
    const Reply reply = client.read();
    CPPUNIT_ASSERT_EQUAL(408, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("close"), reply.header("Connection"));
    CPPUNIT_ASSERT(answered - headSent >= std::chrono::milliseconds(600));
    CPPUNIT_ASSERT_MESSAGE("sent " + std::to_string(sent) + " bytes", sent >= 3);
    CPPUNIT_ASSERT(client.closedByServer());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), server_->stats().bodyTimeouts.load());
  }

  // At max_connections with no idle connection, a new client closes the
  // connection whose body arrives at the lowest pace, once bodies have had
  // a second to show it; the faster bodies finish and are answered.
  void testSlowestBodyIsShedWhenNoneIsIdle() {
    HttpOptions o = options();
    o.limits.maxConnections = 3;
    o.limits.body = std::chrono::seconds(30);
    restart(o);
    const std::string body = jsonBody(200);
    // Each waits for the interim answer, sent once its head is read: every
    // one is then receiving its body (none is an idle connection to shed),
    // and the slow one, first, is judged no later than the others.
    const auto receivingBody = [this] {
      auto client = std::make_unique<RawClient>(port_);
      client->send(
          "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n"
          "Expect: 100-continue\r\n\r\n");
      CPPUNIT_ASSERT_EQUAL(100, client->read().status);
      return client;
    };
    const auto slow = receivingBody();
    slow->send(body.substr(0, 1));
    std::vector<std::unique_ptr<RawClient>> fast;
    for (int i = 0; i < 2; ++i) {
      fast.push_back(receivingBody());
      fast.back()->send(body.substr(0, 100));
    }
    // New clients are refused (503) until a body has arrived for a second
    // (or served in the place of a refused one still lingering).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int status = 0;
    while (server_->stats().shedSlowBodies.load() == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      RawClient late(port_);
      late.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
      status = late.read().status;
      if (status == 503) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // pacing
    }
    CPPUNIT_ASSERT_EQUAL(200, status);
    CPPUNIT_ASSERT(slow->closedByServer());
    for (auto& upload : fast) {
      upload->send(body.substr(100));
      CPPUNIT_ASSERT_EQUAL(201, upload->read().status);
    }
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), server_->stats().shedSlowBodies.load());
  }

  void testAddressCapAnswers503() {
    HttpOptions o = options();
    o.limits.maxPerAddress = 2;
    restart(o);
    auto first = std::make_unique<RawClient>(port_);
    RawClient second(port_);
    for (RawClient* client : {first.get(), &second}) {
      client->send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
      CPPUNIT_ASSERT_EQUAL(200, client->read().status);
    }
    RawClient third(port_);
    assertRefusal(third.read());
    CPPUNIT_ASSERT(third.closedByServer());
    // Once one closes, the address has room again.
    first.reset();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int status = 0;
    while (status != 200 && std::chrono::steady_clock::now() < deadline) {
      RawClient again(port_);
      again.send("GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n");
      status = again.read().status;
    }
    CPPUNIT_ASSERT_EQUAL(200, status);
  }

 private:
  HttpOptions options() const {
    HttpOptions o;
    o.port = 0;
    o.ioThreads = 1;
    o.threads = 4;
    o.maxQueued = 8;
    o.limits.maxBodyBytes = kMaxBody;
    o.limits.keepAlive = std::chrono::seconds(5);
    return o;
  }

  void restart(const HttpOptions& o) {
    if (server_) server_->stop();
    server_ = std::make_unique<HttpServer>(o, *pipeline_);
    server_->start();
    port_ = server_->port();
  }

  // {"a":"xxx..."} of exactly `size` bytes.
  static std::string jsonBody(std::size_t size) {
    return "{\"a\":\"" + std::string(size - 8, 'x') + "\"}";
  }

  static void assertRefusal(const Reply& reply) {
    CPPUNIT_ASSERT_EQUAL(503, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("1"), reply.header("Retry-After"));
    CPPUNIT_ASSERT_EQUAL(std::string("close"), reply.header("Connection"));
    CPPUNIT_ASSERT_EQUAL(std::string("application/json; charset=utf-8"),
                         reply.header("Content-Type"));
    CPPUNIT_ASSERT(!reply.header("X-Request-Id").empty());
    CPPUNIT_ASSERT(Json::parse(reply.body)["message"].isString());
  }

  std::shared_ptr<Gate> gate_;
  rapport::test::FakeAuthenticator auth_;
  MemoryRateLimitStore store_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<VersionPolicy> policy_;
  std::unique_ptr<Pipeline> pipeline_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionTest);
