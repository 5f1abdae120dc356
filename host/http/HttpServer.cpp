#include "http/HttpServer.h"

#include <boost/asio/error.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "http/server/ClientConnection.h"
#include "http/server/EventLoop.h"
#include "http/server/OpenFileLimit.h"
#include "http/server/Refusal.h"
#include "http/server/ServerContext.h"
#include "http/server/WorkerPool.h"
#include "log/Log.h"

namespace rapport::host {
namespace {

using boost::asio::ip::tcp;

// How long stop() waits for requests in flight.
constexpr auto kDrainTimeout = std::chrono::seconds(10);
// After accept() failed for want of descriptors, the next try waits this
// long (a connection was shed meanwhile), instead of spinning.
constexpr auto kAcceptRetry = std::chrono::milliseconds(50);
// Connections accepted in one go from the backlog (then other events get
// their turn).
constexpr int kAcceptBatch = 64;
// The counters are logged this often when something happened.
constexpr auto kStatsInterval = std::chrono::seconds(60);

HttpOptions validated(HttpOptions options) {
  if (options.threads < 1) throw std::invalid_argument("server.threads must be at least 1");
  if (options.maxQueued < 1) throw std::invalid_argument("server.max_queued must be at least 1");
  if (options.ioThreads < 0 || options.ioThreads > 64) {
    throw std::invalid_argument("server.io_threads must be between 0 (automatic) and 64");
  }
  if (options.port < 0 || options.port > 65535) {
    throw std::invalid_argument("server.port must be between 0 and 65535");
  }
  if (options.limits.maxConnections < 1) {
    throw std::invalid_argument("server.max_connections must be at least 1");
  }
  if (options.ioThreads == 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    options.ioThreads = std::clamp(cores / 2, 1, 4);
  }
  return options;
}

}  // namespace

HttpServer::HttpServer(HttpOptions options, const Pipeline& pipeline)
    : options_(validated(std::move(options))),
      pipeline_(pipeline),
      addresses_(options_.limits.maxPerAddress) {}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::start() {
  if (acceptor_) throw std::logic_error("HttpServer::start called twice");
  // Every connection is a descriptor: without this, the default soft limit
  // of 1,024 refuses clients long before max_connections.
  const std::size_t fit = connectionsWithin(raiseOpenFileLimit());
  if (options_.limits.maxConnections > fit) {
    log::warn("server.max_connections lowered to fit the open-file limit",
              {{"configured", std::to_string(options_.limits.maxConnections)},
               {"used", std::to_string(fit)}});
    options_.limits.maxConnections = fit;
  }
  workers_ = std::make_unique<WorkerPool>(static_cast<std::size_t>(options_.threads),
                                          static_cast<std::size_t>(options_.maxQueued));
  context_.reset(new ServerContext{pipeline_, *workers_, options_.limits, stats_, addresses_,
                                   options_.trustedProxies});
  for (int i = 0; i < options_.ioThreads; ++i) {
    loops_.push_back(std::make_unique<EventLoop>(*context_));
  }
  listen();
  timer_ = std::make_unique<boost::asio::steady_timer>(loops_.front()->context());
  reportStats();
  accept();
  for (auto& loop : loops_) loop->start();
  log::info("http listening", {{"host", options_.host},
                               {"port", std::to_string(port_)},
                               {"io_threads", std::to_string(options_.ioThreads)},
                               {"workers", std::to_string(options_.threads)}});
}

void HttpServer::listen() {
  const std::string address = options_.host + ":" + std::to_string(options_.port);
  try {
    acceptor_ = std::make_unique<tcp::acceptor>(loops_.front()->context());
    const tcp::endpoint endpoint(boost::asio::ip::make_address(options_.host),
                                 static_cast<unsigned short>(options_.port));
    acceptor_->open(endpoint.protocol());
    // SO_REUSEADDR (a restart binds while old connections are in TIME_WAIT)
    // but not SO_REUSEPORT: a second server on the same port must fail, not
    // silently share the connections.
    acceptor_->set_option(tcp::acceptor::reuse_address(true));
    acceptor_->bind(endpoint);
    acceptor_->listen(boost::asio::socket_base::max_listen_connections);
    acceptor_->non_blocking(true);  // acceptWaiting() takes the backlog without blocking
  } catch (const std::exception& e) {
    acceptor_.reset();
    loops_.clear();
    throw std::runtime_error("cannot listen on " + address + ": " + e.what());
  }
  port_ = acceptor_->local_endpoint().port();
}

// Connections are spread over the loops in turn; the acceptor runs on the
// first loop.
void HttpServer::accept() {
  EventLoop& target = *loops_[nextLoop_++ % loops_.size()];
  acceptor_->async_accept(target.context(), [this, &target](const boost::system::error_code& error,
                                                            tcp::socket socket) {
    if (error == boost::asio::error::operation_aborted || !acceptor_->is_open()) return;
    if (error) {
      acceptFailed(error);
      return;
    }
    handOver(target, std::move(socket));
    if (acceptWaiting()) accept();
  });
}

// The rest of the backlog at once, a batch at a time: under load, each
// accept would otherwise wait its turn behind every read the loop has
// queued, and new clients would sit in the backlog for seconds. False when
// accept failed (acceptFailed() then schedules the next try).
bool HttpServer::acceptWaiting() {
  for (int i = 0; i < kAcceptBatch; ++i) {
    EventLoop& target = *loops_[nextLoop_ % loops_.size()];
    boost::system::error_code error;
    tcp::socket socket = acceptor_->accept(target.context(), error);
    if (error == boost::asio::error::would_block || error == boost::asio::error::try_again) {
      return true;
    }
    if (error) {
      acceptFailed(error);
      return false;
    }
    ++nextLoop_;
    handOver(target, std::move(socket));
  }
  return true;
}

void HttpServer::handOver(EventLoop& target, tcp::socket socket) {
  if (&target == loops_.front().get()) {
    welcome(target, std::move(socket));
    return;
  }
  boost::asio::post(target.context(), [this, &target, socket = std::move(socket)]() mutable {
    welcome(target, std::move(socket));
  });
}

// On the connection's loop.
void HttpServer::welcome(EventLoop& loop, tcp::socket socket) {
  if (context_->stopping) return;  // the socket closes as it goes
  boost::system::error_code error;
  const tcp::endpoint peer = socket.remote_endpoint(error);
  if (error) return;  // gone already
  std::string address = peer.address().to_string();
  ++stats_.accepted;
  ++stats_.open;
  const bool underAddressCap = addresses_.tryAdd(address);
  auto connection =
      std::make_shared<ClientConnection>(std::move(socket), loop, *context_, std::move(address),
                                         underAddressCap && addresses_.enabled());
  if (!underAddressCap) {
    ++stats_.refusedPerAddress;
    connection->refuse(
        serviceUnavailable("Too many connections from your address. Close one and try again."));
    return;
  }
  if (static_cast<std::size_t>(stats_.open.load()) > options_.limits.maxConnections) {
    if (!loop.shedOne()) {
      ++stats_.refusedFull;
      connection->refuse(
          serviceUnavailable("The server has too many connections. Try again shortly."));
      return;
    }
  }
  connection->start();
}

void HttpServer::acceptFailed(const boost::system::error_code& error) {
  ++stats_.acceptFailures;
  log::warn("accept failed", {{"error", error.message()}});
  // Out of descriptors: make room by shedding, then try again in a moment.
  if (error == boost::asio::error::no_descriptors) loops_.front()->shedOne();
  auto retry = std::make_shared<boost::asio::steady_timer>(loops_.front()->context(), kAcceptRetry);
  retry->async_wait([this, retry](const boost::system::error_code& e) {
    if (!e && acceptor_->is_open()) accept();
  });
}

void HttpServer::reportStats() {
  timer_->expires_after(kStatsInterval);
  timer_->async_wait([this](const boost::system::error_code& error) {
    if (error) return;
    const std::uint64_t events = stats_.events();
    if (events != reportedEvents_) stats_.log("connections");
    reportedEvents_ = events;
    reportStats();
  });
}

bool HttpServer::stop() {
  if (!acceptor_ || stopped_) return true;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + kDrainTimeout;
  context_->stopping = true;
  // Stop accepting (new clients are refused at once, not left in the
  // backlog), and close every connection that waits for its client.
  boost::asio::post(loops_.front()->context(), [this] {
    boost::system::error_code ignored;
    acceptor_->close(ignored);
    timer_->cancel();
  });
  for (auto& loop : loops_) {
    boost::asio::post(loop->context(), [loop = loop.get()] { loop->closeIdle(); });
  }
  // Requests in flight finish and close their connections.
  while (stats_.open.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  workers_->stop();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  const bool drained =
      stats_.open.load() == 0 && workers_->join(std::max(left, std::chrono::milliseconds(0)));
  stats_.log("http stopped");
  if (drained) {
    for (auto& loop : loops_) loop->stop();
    return true;
  }
  // Requests still running hold their connections, which use the loops and
  // the context: leave them alive (the process is about to exit) rather than
  // free them under a running thread.
  log::error("http stop timed out; requests still running", {{"port", std::to_string(port_)}});
  for (auto& loop : loops_) loop->stop();
  for (auto& loop : loops_) [[maybe_unused]] auto* kept = loop.release();
  [[maybe_unused]] auto* workers = workers_.release();
  [[maybe_unused]] auto* context = context_.release();
  return false;
}

}  // namespace rapport::host
