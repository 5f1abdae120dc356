// One HTTP exchange as the transport hands it to the Pipeline and takes it
// back: plain data, no sockets, so the whole request path is testable
// without a server.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rapport/http.h"

namespace rapport::host {

// What the transport could make of the request: its head (request line and
// header fields) and its body framing. Anything but Complete is answered
// with an error after the rate limit and before routing, so that the answer
// carries every header an API response does.
enum class ReadState {
  Complete,              // `body` holds all of it (possibly empty)
  TooLarge,              // over the size cap, not kept: 413
  Incomplete,            // the connection broke off mid-body: 400
  Malformed,             // unparsable request line, header field or body framing: 400
  UriTooLong,            // request line over the limit: 414
  HeaderFieldsTooLarge,  // a header field line, or all of them, over the limit: 431
  VersionNotSupported,   // a well-formed HTTP version other than 1.x: 505
  HostMissing,           // an HTTP/1.1 request without Host: 400
  HostRepeated,          // two Host header lines: 400
  TimedOut,              // the head or the body stopped arriving (server.*_timeout): 408
};

struct RawRequest {
  std::string method;  // "GET", ...
  std::string path;    // raw (still percent-encoded), without the query
  std::string query;   // raw, without the '?'
  rapport::Headers headers;
  std::string body;
  ReadState readState = ReadState::Complete;
  std::string clientAddress;  // peer address without port
};

struct RawResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // Value of the first header named `name` (case-insensitive), or nullptr.
  const std::string* header(const std::string& name) const;
  // Replaces every header named `name` by one with `value`.
  void setHeader(const std::string& name, std::string value);
};

}  // namespace rapport::host
