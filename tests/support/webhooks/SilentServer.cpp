#include "support/webhooks/SilentServer.h"

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

#include <vector>

namespace rapport::test::webhooks {

struct SilentServer::Impl {
  Poco::Net::ServerSocket socket{Poco::Net::SocketAddress("127.0.0.1", 0), 256};
  std::vector<Poco::Net::StreamSocket> held;  // never read, never written
  std::atomic<bool> stopping{false};
};

SilentServer::SilentServer() : impl_(std::make_unique<Impl>()) {
  port_ = impl_->socket.address().port();
  thread_ = std::thread([this] {
    while (!impl_->stopping.load()) {
      // Polls so that the destructor can end the thread.
      if (!impl_->socket.poll(Poco::Timespan(0, 50000), Poco::Net::Socket::SELECT_READ)) continue;
      try {
        impl_->held.push_back(impl_->socket.acceptConnection());
        accepted_.fetch_add(1);
      } catch (...) {
      }
    }
  });
}

SilentServer::~SilentServer() {
  impl_->stopping.store(true);
  thread_.join();
}

std::string SilentServer::url(const std::string& path) const {
  return "https://localhost:" + std::to_string(port_) + path;
}

}  // namespace rapport::test::webhooks
