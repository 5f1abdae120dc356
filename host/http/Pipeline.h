// The request path, in one place (architecture-anchors "request path"):
//
//   request id -> bearer token (identity kept, not judged yet)
//   -> rate limit (headers on every response; 429 with Retry-After): per
//      token, or per client key (ratelimit/ClientKey.h: IPv6 per /64)
//      without one and on every Access::Public route; a store that fails
//      serves or refuses (503) as ratelimit.on_store_error says
//      (ratelimit/StoreErrorPolicy.h)
//   -> what the transport refused to read (400 malformed or without one
//      Host, 408, 411, 413, 414, 431, 505) -> version policy (410, deprecation headers)
//   -> router (404, 405 + Allow) -> access (401, 403)
//   -> body and query parsing (400)
//   -> Idempotency-Key of an authenticated POST (idempotency/: a kept
//      answer is replayed here; 409, 422)
//   -> If-Match of a record's write (conditional/: 412, and the check
//      armed for the handler's first transaction), and the key's fence
//      armed for each of its transactions (storage/RequestTransactions.h)
//   -> module handler -> ETag of a record's GET (304) -> envelope
//
// Every response, whatever went wrong, carries Content-Type, X-Request-Id,
// X-RateLimit-Limit/Remaining/Reset and the deprecation headers of its
// path. rapport::Error becomes its own status and message; any other
// exception becomes a generic 500 whose details go only to the log, with
// the request id and the module that owns the route. Every answer is
// counted by route template, method and status (metrics/Metrics.h) and, at
// info, logged as the access line (docs/operations.md).
//
// Threading: handle() is const and runs on many worker threads at once. The
// Router, VersionPolicy, Authenticator and RateLimitStore must outlive the
// Pipeline; the last two must be thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "http/Authenticator.h"
#include "http/Exchange.h"
#include "http/Router.h"
#include "http/VersionPolicy.h"
#include "ratelimit/RateLimitStore.h"
#include "ratelimit/StoreErrorPolicy.h"
#include "storage/RequestTransactions.h"

namespace rapport::host {

class ConditionalRoutes;
class IdempotencyKeys;

struct PipelineOptions {
  std::int64_t rateLimitRequests = 60;  // per window, per token or client key
  std::int64_t rateLimitWindow = 60;    // seconds
  // api.check_responses: when set, runs on every handler's answer; a
  // non-empty result (what disagrees with the route's description) turns
  // the answer into a 500 logged with it (openapi/ResponseCheck.h).
  std::function<std::string(const Route&, const rapport::Response&)> checkResponse;
  // Conditional requests on records; null: no ETags, If-* ignored.
  const ConditionalRoutes* conditions = nullptr;
  // Idempotency-Key on authenticated POSTs; null: the header is ignored.
  const IdempotencyKeys* idempotency = nullptr;
  // ratelimit.on_store_error: a request the store could not count.
  OnStoreError onStoreError = OnStoreError::DenyAuth;
};

class Pipeline {
 public:
  // Microseconds since the epoch, UTC. Injected so tests can cross window
  // and sunset boundaries without waiting.
  using Clock = std::function<std::int64_t()>;

  Pipeline(const Router& router, Authenticator& authenticator, RateLimitStore& rateLimits,
           const VersionPolicy& versions, PipelineOptions options = {}, Clock clock = {});

  // Never throws.
  RawResponse handle(const RawRequest& request) const;

 private:
  struct Context;

  RawResponse respond(const RawRequest& raw, Context& ctx) const;
  RawResponse route(const RawRequest& raw, Context& ctx) const;
  // `fence`: the Idempotency-Key's (empty when the request has none).
  RawResponse runHandler(const Route& route, const rapport::Request& request,
                         RequestTransactions::Hook fence) const;
  std::optional<rapport::Identity> authenticate(const rapport::Headers& headers) const;
  // `route`: the matched route, or null (404, 405).
  void limitRate(const RawRequest& raw, Context& ctx, const Route* route) const;
  void finish(RawResponse& response, const Context& ctx) const;

  const Router& router_;
  Authenticator& authenticator_;
  RateLimitStore& rateLimits_;
  const VersionPolicy& versions_;
  PipelineOptions options_;
  Clock clock_;
  mutable StoreErrorPolicy storeErrors_;
};

}  // namespace rapport::host
