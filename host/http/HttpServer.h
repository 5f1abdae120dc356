// The HTTP/1.1 listener: Poco's TCPServer with a thread pool of our own and
// connections of our own (HttpConnection), serving every request through the
// Pipeline, malformed ones included.
//
// One thread per connection for the connection's whole keep-alive life
// (stack-facts): `threads` is the number of clients served at once, and a
// short keep-alive timeout returns idle threads quickly. Production puts a
// reverse proxy in front.
//
// Lifetime: the Router, Authenticator, RateLimitStore and VersionPolicy must
// outlive the server. Call start() once; stop() (also run by the destructor)
// stops accepting, lets requests in flight finish, then returns.
#pragma once

#include <Poco/SharedPtr.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "http/Authenticator.h"
#include "http/Pipeline.h"
#include "http/Router.h"
#include "http/VersionPolicy.h"
#include "ratelimit/RateLimitStore.h"

namespace Poco {
class ThreadPool;
namespace Net {
class ServerSocket;
class TCPServer;
}  // namespace Net
}  // namespace Poco

namespace rapport::host {

class HttpConnectionFactory;

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0 picks a free port (tests); port() tells which
  int threads = 64;
  int maxQueued = 256;  // accepted connections waiting for a thread
  int keepAliveSeconds = 5;
  std::size_t maxBodyBytes = 1048576;  // 1 MiB (decisions §1); larger bodies get 413
  std::int64_t rateLimitRequests = 60;
  std::int64_t rateLimitWindow = 60;
};

class HttpServer {
 public:
  // Throws std::invalid_argument for threads or maxQueued below 1.
  HttpServer(HttpOptions options, Router& router, Authenticator& authenticator,
             RateLimitStore& rateLimits, const VersionPolicy& versions);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving. Throws Poco::Net::NetException (or another
  // Poco::Exception) when the address cannot be bound.
  void start();
  // The bound port (the real one when options.port was 0); 0 before start().
  int port() const { return port_; }
  // Stops accepting, waits up to 10 s for requests in flight, and returns.
  // Idempotent.
  void stop();

 private:
  HttpOptions options_;
  std::unique_ptr<Pipeline> pipeline_;      // outlives pool_ and server_
  std::unique_ptr<Poco::ThreadPool> pool_;  // outlives server_
  std::unique_ptr<Poco::Net::ServerSocket> socket_;
  Poco::SharedPtr<HttpConnectionFactory> connections_;  // shared with server_
  std::unique_ptr<Poco::Net::TCPServer> server_;
  int port_ = 0;
  bool stopped_ = false;
};

}  // namespace rapport::host
