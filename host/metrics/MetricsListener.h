// The metrics listener (metrics.listen = host:port; unset: none): a small
// HTTP server of its own, never the public API port, that answers
// GET /metrics with the registry in the Prometheus text format and 404 to
// any other path (405 to another method on /metrics). Two threads: a
// scrape every few seconds needs no more, and a burst of scrapes queues
// instead of taking threads from the API.
//
// It is Poco's HTTPServer, not the API's front end (http/server): that one
// is built for many clients and carries the API's envelope, limits and
// rate limit, none of which a scraper needs.
#pragma once

#include <memory>
#include <string>

namespace Poco::Net {
class HTTPServer;
}
namespace Poco {
class ThreadPool;
}

namespace rapport::host::metrics {

class Registry;

struct ListenAddress {
  std::string host;
  int port = 0;  // 0: the kernel picks one (tests); port() tells which
};

// Parses metrics.listen: "127.0.0.1:9090", "[::1]:9090", "localhost:9090".
// Throws std::invalid_argument naming the key for anything else.
ListenAddress parseListenAddress(const std::string& text);

class MetricsListener {
 public:
  // Binds now; throws std::runtime_error naming the address when it cannot.
  MetricsListener(const ListenAddress& address, const Registry& registry);
  ~MetricsListener();
  MetricsListener(const MetricsListener&) = delete;
  MetricsListener& operator=(const MetricsListener&) = delete;

  int port() const { return port_; }

 private:
  std::unique_ptr<Poco::ThreadPool> threads_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  int port_ = 0;
};

}  // namespace rapport::host::metrics
