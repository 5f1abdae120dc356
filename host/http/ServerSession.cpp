#include "http/ServerSession.h"

#include <Poco/Net/NetException.h>

#include <algorithm>
#include <limits>

namespace rapport::host {

ServerSession::ServerSession(const Poco::Net::StreamSocket& socket,
                             Poco::Net::HTTPServerParams::Ptr params)
    : HTTPServerSession(socket, params) {
  // Poco applies its timeout to receives only: a client that never reads
  // its response would hold the thread in send() for ever.
  this->socket().setSendTimeout(params->getTimeout());
}

int ServerSession::nextByte() {
  return get();
}

std::size_t ServerSession::readSome(char* buffer, std::size_t length) {
  const auto capped = std::min<std::size_t>(length, std::numeric_limits<int>::max());
  const int n = read(buffer, static_cast<std::streamsize>(capped));
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

void ServerSession::sendAll(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto chunk = std::min<std::size_t>(bytes.size(), std::numeric_limits<int>::max());
    const int n = write(bytes.data(), static_cast<std::streamsize>(chunk));
    if (n <= 0) throw Poco::Net::NetException("connection closed while sending");
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace rapport::host
