// One delivery attempt over HTTPS (decisions §8): POST the envelope with the
// API's headers, signed now, to an address the TargetGuard just approved.
//
// - TLS through Poco NetSSL with the sender's own client Context: the
//   system CA store plus `webhooks.ca_file`, peer and host name verified
//   (the name from the URL is used for SNI and verification while the TCP
//   connection goes to the checked address);
// - `timeout` is one deadline for the whole attempt: the name lookup, the
//   TCP connection, the TLS handshake (a receiver that accepts and never
//   answers the handshake gives up at it), the sending and every read; an
//   answer that trickles in is cut when it runs out;
// - the answer is read up to `readCap` bytes (never unbounded); the first
//   `keepBytes` are returned for response_body; a longer answer closes the
//   connection instead of reading on;
// - redirects are not followed (3xx is a failed attempt);
// - connections are kept alive and reused per (host, port, address) when
//   the receiver allows it and the answer was read whole.
//
// Thread-safe: the delivery workers and request threads (ping, manual
// retry) share one sender.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "delivery/TargetGuard.h"

namespace rapport::webhooks {

struct AttemptRequest {
  std::string url;
  std::string deliveryId;  // whd_ (X-Service-Delivery)
  std::string event;       // X-Service-Event
  std::string body;        // the envelope, exactly as stored
  std::string secret;      // the whole secret (HMAC key)
  // The secret a rotation replaced, while its overlap lasts: a second v1.
  std::optional<std::string> previousSecret = std::nullopt;
  std::string companyId;  // whose delivery: the resolver's per-company bound
};

struct AttemptResult {
  int status = 0;     // the receiver's HTTP status; 0 when none came
  std::string body;   // first keepBytes of the answer
  std::string error;  // why it failed, for logs ("timed out", "refused target ..."); no secrets
  std::int64_t attemptedAt = 0;  // microseconds since the epoch, when the attempt started
  bool timedOut = false;         // the deadline ran out (name lookup, connect, TLS, answer)
  std::string retryAfter;        // the answer's Retry-After header, as sent ("" when none)
  bool success() const { return status >= 200 && status < 300; }
};

class HttpsSender {
 public:
  struct Options {
    std::chrono::milliseconds timeout{10000};
    std::string caFile;  // extra trusted CA (PEM), may be empty
    bool allowPrivateTargets = false;
    std::size_t readCap = 64 * 1024;
    std::size_t keepBytes = 4096;
    std::string userAgent = "Rapport-Webhooks/1.0";
  };

  explicit HttpsSender(Options options);
  ~HttpsSender();
  HttpsSender(const HttpsSender&) = delete;
  HttpsSender& operator=(const HttpsSender&) = delete;

  // Never throws for a receiver's fault: every failure is an AttemptResult
  // with status 0 (or the 3xx/4xx/5xx it got) and an error.
  AttemptResult send(const AttemptRequest& request);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rapport::webhooks
