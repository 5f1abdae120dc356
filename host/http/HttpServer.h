// The HTTP/1.1 listener: an event-driven front end (http/server) over
// Boost.Asio. A few I/O threads (EventLoop, epoll underneath) accept,
// read and write for every connection; only complete requests go to a
// bounded pool of workers (WorkerPool) that runs them through the
// Pipeline. An idle or slow connection costs a socket and a small buffer,
// never a thread; deadlines and limits (ConnectionLimits) bound what a
// client can hold. docs/api-choices.md "Connections" says why Asio, and how
// each limit answers.
//
// Lifetime: the Pipeline must outlive the server. Call start() once;
// stop() (also run by the destructor) stops accepting, lets requests in
// flight finish, then returns.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "http/Pipeline.h"
#include "http/TrustedProxies.h"
#include "http/server/AddressCounts.h"
#include "http/server/ConnectionLimits.h"
#include "http/server/ConnectionStats.h"

namespace rapport::host {

class EventLoop;
class WorkerPool;
struct ServerContext;

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;       // 0 picks a free port (tests); port() tells which
  int ioThreads = 0;     // 0: one per two cores, 1 to 4
  int threads = 32;      // workers running requests
  int maxQueued = 4096;  // complete requests waiting for a worker; beyond: 503
  ConnectionLimits limits;
  // Whose X-Forwarded-For names the client (server.trusted_proxies).
  TrustedProxies trustedProxies;
};

class HttpServer {
 public:
  // Throws std::invalid_argument for a value out of range.
  HttpServer(HttpOptions options, const Pipeline& pipeline);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving. Throws std::runtime_error naming the address
  // when it cannot be bound.
  void start();
  // The bound port (the real one when options.port was 0); 0 before start().
  int port() const { return port_; }
  // Stops accepting, closes connections waiting for a request, lets the
  // requests in flight (arriving, running, being answered) finish (their
  // answers say "Connection: close"),
  // up to 10 s. Returns false when requests still ran at the deadline: their
  // threads then run on, and what they use (the Pipeline and everything it
  // reaches) must stay alive. Idempotent.
  bool stop();

  const ConnectionStats& stats() const { return stats_; }

 private:
  void listen();
  void accept();
  bool acceptWaiting();
  void handOver(EventLoop& target, boost::asio::ip::tcp::socket socket);
  void welcome(EventLoop& loop, boost::asio::ip::tcp::socket socket);
  void acceptFailed(const boost::system::error_code& error);
  void reportStats();

  HttpOptions options_;
  const Pipeline& pipeline_;
  ConnectionStats stats_;
  AddressCounts addresses_;
  std::unique_ptr<WorkerPool> workers_;
  std::unique_ptr<ServerContext> context_;
  std::vector<std::unique_ptr<EventLoop>> loops_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;  // on loops_[0]
  std::unique_ptr<boost::asio::steady_timer> timer_;          // on loops_[0]
  std::size_t nextLoop_ = 0;
  std::uint64_t reportedEvents_ = 0;
  int port_ = 0;
  bool stopped_ = false;
};

}  // namespace rapport::host
