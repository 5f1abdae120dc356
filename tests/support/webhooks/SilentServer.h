// A receiver that hangs as badly as one can (e2e.webhooks fairness tests):
// it accepts TCP connections on 127.0.0.1 and a port the kernel picks, and
// never sends a byte, so a TLS client waits for the server's handshake until
// its own deadline. Connections are held until the server ends.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

namespace rapport::test::webhooks {

class SilentServer {
 public:
  // Listens at once.
  SilentServer();
  ~SilentServer();
  SilentServer(const SilentServer&) = delete;
  SilentServer& operator=(const SilentServer&) = delete;

  int port() const { return port_; }
  // https://localhost:<port><path>
  std::string url(const std::string& path) const;
  // TCP connections accepted so far.
  int accepted() const { return accepted_.load(); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

}  // namespace rapport::test::webhooks
