#include "http/HttpServer.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>
#include <Poco/Timespan.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "http/HttpConnectionFactory.h"
#include "log/Log.h"

namespace rapport::host {
namespace {

// How long stop() waits for requests in flight.
constexpr auto kDrainTimeout = std::chrono::seconds(10);
// How long a connection may take to send a request's headers and body; the
// default (60 s) lets a slow client hold a thread for a minute.
constexpr long kReceiveTimeoutSeconds = 15;
// The session counts requests per connection; recycling one after this many
// keeps a single client from pinning a thread forever.
constexpr int kMaxKeepAliveRequests = 100000;

void validate(const HttpOptions& options) {
  if (options.threads < 1) throw std::invalid_argument("http: threads must be at least 1");
  if (options.maxQueued < 1) throw std::invalid_argument("http: max_queued must be at least 1");
  if (options.port < 0 || options.port > 65535) {
    throw std::invalid_argument("http: port must be between 0 and 65535");
  }
}

PipelineOptions pipelineOptions(const HttpOptions& options) {
  PipelineOptions out;
  out.rateLimitRequests = options.rateLimitRequests;
  out.rateLimitWindow = options.rateLimitWindow;
  return out;
}

Poco::Net::HTTPServerParams::Ptr serverParams(const HttpOptions& options) {
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(options.threads);
  params->setMaxQueued(options.maxQueued);
  params->setKeepAlive(options.keepAliveSeconds > 0);
  params->setKeepAliveTimeout(Poco::Timespan(std::max(options.keepAliveSeconds, 1), 0));
  params->setMaxKeepAliveRequests(kMaxKeepAliveRequests);
  params->setTimeout(Poco::Timespan(kReceiveTimeoutSeconds, 0));
  return params;
}

}  // namespace

HttpServer::HttpServer(HttpOptions options, Router& router, Authenticator& authenticator,
                       RateLimitStore& rateLimits, const VersionPolicy& versions)
    : options_((validate(options), std::move(options))),
      pipeline_(std::make_unique<Pipeline>(router, authenticator, rateLimits, versions,
                                           pipelineOptions(options_))) {}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::start() {
  if (server_) throw std::logic_error("HttpServer::start called twice");
  // SO_REUSEADDR (a restart binds while old connections are in TIME_WAIT) but
  // not SO_REUSEPORT, which Poco's ServerSocket(address) also sets: with it a
  // second server on the same port would start and silently share the
  // connections instead of failing.
  const std::string address = options_.host + ":" + std::to_string(options_.port);
  try {
    socket_ = std::make_unique<Poco::Net::ServerSocket>();
    socket_->bind(Poco::Net::SocketAddress(options_.host, static_cast<Poco::UInt16>(options_.port)),
                  true, false);
    socket_->listen(std::max(64, options_.maxQueued));
  } catch (const Poco::Exception& e) {
    // Poco's what() is only "Net Exception"; the operator needs the reason.
    socket_.reset();
    throw std::runtime_error("cannot listen on " + address + ": " + e.displayText());
  }
  port_ = socket_->address().port();
  // Connection threads come from this pool alone: Poco's default pool caps at
  // 16 whatever maxThreads says.
  pool_ = std::make_unique<Poco::ThreadPool>(std::min(2, options_.threads), options_.threads);
  // Poco's TCPServer accepts and queues (maxQueued) and runs each connection
  // on the pool; the connections are ours (HttpConnection), not Poco's
  // HTTPServerConnection, so that every answer is in the API's shape.
  const Poco::Net::HTTPServerParams::Ptr params = serverParams(options_);
  connections_ = new HttpConnectionFactory(*pipeline_, options_.maxBodyBytes, params);
  server_ = std::make_unique<Poco::Net::TCPServer>(connections_, *pool_, *socket_, params);
  server_->start();
  log::info("http listening", {{"host", options_.host}, {"port", std::to_string(port_)}});
}

void HttpServer::stop() {
  if (!server_ || stopped_) return;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + kDrainTimeout;
  // Stop accepting, then close the listening socket so that new clients are
  // refused at once instead of waiting in the backlog for nobody.
  server_->stop();
  socket_->close();
  // stopAll() shuts each connection down as soon as its current request is
  // answered, blocking until then: run it aside so a handler that never
  // returns cannot hold stop() forever.
  auto stopped = std::make_shared<std::promise<void>>();
  std::future<void> done = stopped->get_future();
  std::thread([connections = connections_, stopped]() mutable {
    connections->stopAll();
    stopped->set_value();
  }).detach();
  bool drained = done.wait_until(deadline) == std::future_status::ready;
  while (drained && pool_->used() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) drained = false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (drained) {
    pool_->joinAll();
    log::info("http stopped", {{"port", std::to_string(port_)}});
    return;
  }
  // Requests still running hold the server, the pool and the pipeline:
  // leave them alive (the process is about to exit) rather than free them
  // under a running thread.
  log::error("http stop timed out; requests still running", {{"port", std::to_string(port_)}});
  [[maybe_unused]] auto* server = server_.release();
  [[maybe_unused]] auto* pool = pool_.release();
  [[maybe_unused]] auto* pipeline = pipeline_.release();
}

}  // namespace rapport::host
