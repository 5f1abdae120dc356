// Reads a request body from Poco with a hard size cap, never "until EOF":
// Poco reads an unframed POST until the client closes, which blocks a worker
// for the whole receive timeout (stack-facts).
#pragma once

#include <cstddef>
#include <string>

#include "http/Exchange.h"

namespace Poco::Net {
class HTTPServerRequest;
}

namespace rapport::host {

struct BodyRead {
  std::string bytes;
  BodyState state = BodyState::Complete;
  // Whether the connection is positioned at the next request. When false
  // the connection must close after the answer.
  bool consumed = true;
};

// Content-Length over `maxBytes`: TooLarge without reading a byte. Chunked:
// read up to maxBytes + 1, TooLarge past the cap. POST/PUT/PATCH with no
// framing at all: LengthRequired. Other methods without framing: no body.
BodyRead readBody(Poco::Net::HTTPServerRequest& request, std::size_t maxBytes);

}  // namespace rapport::host
