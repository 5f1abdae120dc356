// The host's metrics (docs/operations.md, "Metrics"): the functions the rest
// of the host calls where something worth counting happens. Each is a few
// relaxed atomic operations, never a lock on the request path, and safe from
// any thread. The families render in the process's registry (Registry.h)
// together with the process's own figures (ProcessMetrics.h); the
// collectors of the HTTP front end and of the webhook queue are added by
// the server while it runs (Sources.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/Instruments.h"

namespace rapport::host::metrics {

// The route label of requests no route matched (404, 405, or refused
// before routing): one value, so clients cannot create series.
inline constexpr std::string_view kUnmatchedRoute = "unmatched";

// One answered request: `route` is the Router's pattern ("/v1/contacts/{id}")
// or kUnmatchedRoute; `method` is folded to a known method or "other".
// rapport_http_requests_total and rapport_http_request_duration_seconds.
void requestServed(std::string_view route, std::string_view method, int status,
                   std::chrono::nanoseconds elapsed);

// A 429 of the per-token / per-address rate limit.
void rateLimited();
// A 429 of the login throttle (accounts/LoginThrottle.h).
void loginThrottled();
// A request the rate-limit store could not count (redis down), served or
// `refused` (503) as ratelimit.on_store_error says.
void rateLimitStoreFailed(bool refused);

// The database session pool (storage/SessionPool.h): a session lent to a
// borrower and given back; an acquisition that had to wait; one that gave up.
void poolSessionLent();
void poolSessionReturned();
void poolAcquireWaited();
void poolAcquireTimedOut();
// A transaction run again after a transient failure (deadlock,
// serialization failure, busy): called by storage's retry loop.
void transactionRetried();

// A job's instruments, resolved once per job thread (jobs/JobRunner.cpp).
struct JobMetrics {
  Counter& succeeded;
  Counter& failed;
  Gauge& lastRun;  // unix seconds when the last run ended
};
JobMetrics jobMetrics(const std::string& job);

// Adds the families above to registry() (once; the first recording does it
// too): a scrape shows them, at zero, before anything happened.
void registerHostMetrics();

}  // namespace rapport::host::metrics
