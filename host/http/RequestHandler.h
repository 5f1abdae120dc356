// The Poco side of one request: translate Poco's request into a RawRequest,
// run the Pipeline, write the RawResponse back. Everything the API decides
// happens in the Pipeline; this file only speaks HTTP/1.1 correctly:
// explicit reason phrases, Content-Length on every response (without it Poco
// closes the connection after each one), and a connection that is closed,
// politely, whenever the request body was left unread.
#pragma once

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include <cstddef>

#include "http/Pipeline.h"

namespace rapport::host {

class RequestHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  RequestHandler(const Pipeline& pipeline, std::size_t maxBodyBytes)
      : pipeline_(pipeline), maxBodyBytes_(maxBodyBytes) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  const Pipeline& pipeline_;
  std::size_t maxBodyBytes_;
};

// Poco asks for one handler per request; they all share the Pipeline, which
// must outlive the server.
class RequestHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  RequestHandlerFactory(const Pipeline& pipeline, std::size_t maxBodyBytes)
      : pipeline_(pipeline), maxBodyBytes_(maxBodyBytes) {}

  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest& request) override;

 private:
  const Pipeline& pipeline_;
  std::size_t maxBodyBytes_;
};

}  // namespace rapport::host
