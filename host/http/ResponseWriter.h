// A RawResponse as HTTP/1.1 bytes: status line with its reason phrase,
// Date, the Pipeline's headers, Content-Length, Connection, body.
//
// Replaces Poco's HTTPServerResponseImpl, which sent "422 OK" for statuses
// without a reason it knows (stack-facts) and closed the connection after
// any response without a Content-Length; here every response has both.
#pragma once

#include <string>

#include "http/Exchange.h"

namespace rapport::host {

// The interim answer to "Expect: 100-continue" (RFC 9110 §15.2.1).
inline constexpr const char* kContinueResponse = "HTTP/1.1 100 Continue\r\n\r\n";

// `headRequest`: the body is left out, its Content-Length kept (RFC 9110
// §9.3.2). 204 and 304 never carry a body; 204 not even a Content-Length.
// Always "HTTP/1.1": a server answers with its own version (RFC 9112 §2.3).
std::string serializeResponse(const RawResponse& response, bool keepAlive, bool headRequest);

}  // namespace rapport::host
