#include "http/LingeringClose.h"

#include <Poco/Exception.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

#include <chrono>
#include <cstddef>

namespace rapport::host {
namespace {

constexpr auto kDrainTime = std::chrono::seconds(2);
constexpr long kDrainIdleMicros = 500'000;
constexpr std::size_t kDrainBytes = 64 * 1024 * 1024;

}  // namespace

void lingeringClose(Poco::Net::StreamSocket& socket) {
  try {
    socket.shutdownSend();
    socket.setReceiveTimeout(Poco::Timespan(0, kDrainIdleMicros));
    const auto deadline = std::chrono::steady_clock::now() + kDrainTime;
    char buffer[16 * 1024];
    std::size_t drained = 0;
    while (drained < kDrainBytes && std::chrono::steady_clock::now() < deadline) {
      const int n = socket.receiveBytes(buffer, sizeof buffer);
      if (n <= 0) break;
      drained += static_cast<std::size_t>(n);
    }
  } catch (const Poco::Exception&) {
    // Time-out or reset: the client is done either way.
  }
}

}  // namespace rapport::host
