#include "http/HttpConnection.h"

#include <Poco/Exception.h>
#include <Poco/Net/SocketAddress.h>

#include <exception>
#include <functional>

#include "http/HttpConnectionFactory.h"
#include "http/ServerSession.h"
#include "log/Log.h"

namespace rapport::host {

HttpConnection::HttpConnection(const Poco::Net::StreamSocket& socket, HttpConnectionFactory& owner)
    : TCPServerConnection(socket), owner_(owner) {
  owner_.attach(*this);
}

HttpConnection::~HttpConnection() {
  owner_.detach(*this);
}

void HttpConnection::run() {
  std::string clientAddress;
  try {
    clientAddress = socket().peerAddress().host().toString();
    ServerSession session(socket(), owner_.params());
    serveAll(session, clientAddress);
  } catch (const Poco::Exception& e) {
    // A time-out or a reset: nobody is left to answer.
    log::debug("connection closed", {{"client", clientAddress}, {"error", e.displayText()}});
  } catch (const std::exception& e) {
    log::error("connection failed", {{"client", clientAddress}, {"error", e.what()}});
  }
}

// Poco's loop (HTTPServerConnection::run): the session waits for each
// request, up to the receive timeout for the first and the keep-alive
// timeout for the next ones, and counts them against maxKeepAliveRequests.
void HttpConnection::serveAll(ServerSession& session, const std::string& clientAddress) {
  const bool keepAliveEnabled = owner_.params()->getKeepAlive();
  // canKeepAlive: false once maxKeepAliveRequests are served.
  const std::function<bool()> mayKeepAlive = [&] {
    return keepAliveEnabled && session.canKeepAlive() && !stopping_;
  };
  while (!stopping_ && session.hasMoreRequests()) {
    std::lock_guard<std::mutex> busy(busy_);
    if (stopping_ || !owner_.handler().serve(session, clientAddress, mayKeepAlive)) break;
  }
}

void HttpConnection::closeAfterRequest() {
  std::lock_guard<std::mutex> busy(busy_);
  try {
    socket().shutdown();
  } catch (const Poco::Exception&) {
    // Already closed by the client or by the connection itself.
  }
}

}  // namespace rapport::host
