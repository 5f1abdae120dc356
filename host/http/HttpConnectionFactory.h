// Makes an HttpConnection for each socket Poco's TCPServer accepts, and keeps
// track of the live ones so that the server's stop can end them gracefully.
//
// Replaces HTTPServerConnectionFactory and HTTPServer::stopAll(false), which
// did the same through HTTPRequestHandlerFactory's serverStopped event.
#pragma once

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

#include <cstddef>
#include <mutex>
#include <unordered_set>

#include "http/Pipeline.h"
#include "http/RequestHandler.h"

namespace rapport::host {

class HttpConnection;

class HttpConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  // The Pipeline must outlive the factory and its connections.
  HttpConnectionFactory(const Pipeline& pipeline, std::size_t maxBodyBytes,
                        Poco::Net::HTTPServerParams::Ptr params);

  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override;

  // Every live connection reads no further request, answers the one in
  // flight, then closes; connections made later close at once. Blocks until
  // each request in flight is answered.
  void stopAll();

  const RequestHandler& handler() const { return handler_; }
  const Poco::Net::HTTPServerParams::Ptr& params() const { return params_; }

  // Called by HttpConnection's constructor and destructor only.
  void attach(HttpConnection& connection);
  void detach(HttpConnection& connection);

 private:
  RequestHandler handler_;
  Poco::Net::HTTPServerParams::Ptr params_;
  std::mutex mutex_;  // guards live_ and stopping_; held by stopAll throughout
  std::unordered_set<HttpConnection*> live_;
  bool stopping_ = false;
};

}  // namespace rapport::host
