// One exchange on a connection: read the request head and body (strictly:
// RequestHead, BodyReader), run the Pipeline, write the response
// (ResponseWriter). Everything the API decides happens in the Pipeline;
// this only speaks HTTP/1.1: a request the transport refuses (unparsable,
// too long, wrong version, bad framing) still goes through the Pipeline, so
// its answer has the envelope, X-Request-Id and the rate-limit headers
// (decisions §1), counted against the client address; and a connection is
// closed, politely, whenever the request was not read to its end.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "http/Exchange.h"
#include "http/Pipeline.h"
#include "http/ServerSession.h"

namespace rapport::host {

class RequestHandler {
 public:
  // The Pipeline must outlive the handler.
  RequestHandler(const Pipeline& pipeline, std::size_t maxBodyBytes)
      : pipeline_(pipeline), maxBodyBytes_(maxBodyBytes) {}

  // Serves the next request on `session`; returns whether the connection
  // may carry another one. `mayKeepAlive` is asked once the Pipeline has
  // answered (a server that began stopping meanwhile answers "Connection:
  // close"). Thread-safe. Throws Poco::Exception when the connection times
  // out or breaks (nobody is left to answer).
  bool serve(ServerSession& session, const std::string& clientAddress,
             const std::function<bool()>& mayKeepAlive) const;

 private:
  const Pipeline& pipeline_;
  std::size_t maxBodyBytes_;
};

}  // namespace rapport::host
