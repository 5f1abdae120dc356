// One HTTP exchange as the transport hands it to the Pipeline and takes it
// back: plain data, no sockets, so the whole request path is testable
// without a server.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rapport/http.h"

namespace rapport::host {

// What the transport could make of the request body.
enum class BodyState {
  Complete,        // `body` holds all of it (possibly empty)
  LengthRequired,  // POST/PUT/PATCH with neither Content-Length nor chunked: 411
  TooLarge,        // over the size cap, not kept: 413
  Incomplete,      // the connection broke off or sent bad chunks mid-body: 400
};

struct RawRequest {
  std::string method;  // "GET", ...
  std::string path;    // raw (still percent-encoded), without the query
  std::string query;   // raw, without the '?'
  rapport::Headers headers;
  std::string body;
  BodyState bodyState = BodyState::Complete;
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
