// One client connection, on one pool thread for its whole keep-alive life.
//
// Replaces Poco's HTTPServerConnection. Its loop is reproduced (wait for a
// request with HTTPServerSession::hasMoreRequests, serve it, repeat while
// keep-alive holds; stop after the request in flight), but Poco's answers
// are not: on a request it cannot parse, Poco's sendErrorResponse writes a
// bare "400 Bad Request" (no body, no X-Request-Id, no rate-limit headers),
// and on some (Content-Length: abc) it just drops the connection. Here the
// RequestHandler reads the request itself and answers every refusal through
// the Pipeline.
#pragma once

#include <Poco/Net/TCPServerConnection.h>

#include <atomic>
#include <mutex>
#include <string>

namespace rapport::host {

class HttpConnectionFactory;
class ServerSession;

class HttpConnection final : public Poco::Net::TCPServerConnection {
 public:
  // Registers with `owner`, which must outlive the connection.
  HttpConnection(const Poco::Net::StreamSocket& socket, HttpConnectionFactory& owner);
  ~HttpConnection() override;
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  void run() override;

  // For the server's stop: read no further request. Any thread.
  void stopReading() { stopping_ = true; }
  // For the server's stop: waits until the request in flight (if any) is
  // answered, then shuts the socket down, which also wakes a connection
  // waiting for its next request. Any thread; never throws.
  void closeAfterRequest();

 private:
  void serveAll(ServerSession& session, const std::string& clientAddress);

  HttpConnectionFactory& owner_;
  std::mutex busy_;  // held while a request is read and answered
  std::atomic<bool> stopping_{false};
};

}  // namespace rapport::host
