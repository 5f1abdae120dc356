// The answers the front end writes itself, on an I/O thread, without a
// worker: when it cannot take a connection (max_connections with nothing to
// shed, max_connections_per_address) or a request (max_queued requests
// already wait). They carry what every API answer carries except the
// rate-limit headers, which would cost a rate-limit store call (a network
// round trip with a shared store) on the path meant to shed load:
// Content-Type, X-Request-Id, Date, the envelope, and Retry-After.
#pragma once

#include <string>

namespace rapport::host {

// "HTTP/1.1 503 Service Unavailable" with {"message": message}, Retry-After:
// 1 and Connection: close, as bytes.
std::string serviceUnavailable(const std::string& message);

}  // namespace rapport::host
