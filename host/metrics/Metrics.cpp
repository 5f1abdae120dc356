#include "metrics/Metrics.h"

#include <array>
#include <string>
#include <unordered_map>

#include "metrics/Family.h"
#include "metrics/ProcessMetrics.h"
#include "metrics/Registry.h"

namespace rapport::host::metrics {
namespace {

// Every family of the host, created on first use and never destroyed
// (request and job threads may record during static destruction at exit).
struct HostFamilies {
  Family<Counter> requests{"rapport_http_requests_total",
                           "HTTP requests answered, by route template, method and status.",
                           {"route", "method", "status"}};
  Family<Histogram> latency{"rapport_http_request_duration_seconds",
                            "Time from a complete request to its answer, by route template.",
                            {"route"},
                            [] { return std::make_unique<Histogram>(latencyBuckets()); }};
  Counter rateLimited;
  Counter loginThrottled;
  Family<Counter> storeErrors{"rapport_ratelimit_store_errors_total",
                              "Requests the rate-limit store could not count (redis down), by "
                              "what ratelimit.on_store_error made of them.",
                              {"outcome"}};
  Counter& storeErrorsServed = storeErrors.with({"served"});
  Counter& storeErrorsRefused = storeErrors.with({"refused"});
  Gauge poolInUse;
  Counter poolWaits;
  Counter poolTimeouts;
  Counter transactionsRetried;
  Family<Counter> jobRuns{
      "rapport_job_runs_total", "Background job runs, by job and outcome.", {"job", "outcome"}};
  Family<Gauge> jobLastRun{
      "rapport_job_last_run_timestamp_seconds", "Unix time when a job's last run ended.", {"job"}};

  HostFamilies() {
    registry().add([this](TextWriter& out) { write(out); });
  }

  void write(TextWriter& out) const {
    requests.write(out, Type::Counter);
    latency.write(out, Type::Histogram);
    single(out, "rapport_ratelimit_refusals_total",
           "Requests refused with 429 by the rate limit (ratelimit.requests per window).",
           rateLimited);
    single(out, "rapport_login_throttle_refusals_total",
           "Password checks refused with 429 by the login throttle.", loginThrottled);
    storeErrors.write(out, Type::Counter);
    out.family("rapport_db_pool_sessions_in_use", "Database sessions lent to a request or job.",
               Type::Gauge);
    out.sample("rapport_db_pool_sessions_in_use", {}, poolInUse.value());
    single(out, "rapport_db_pool_waits_total",
           "Session acquisitions that waited for a session to come back.", poolWaits);
    single(out, "rapport_db_pool_acquire_timeouts_total",
           "Session acquisitions that gave up after database.acquire_timeout_ms.", poolTimeouts);
    single(out, "rapport_db_transactions_retried_total",
           "Transactions run again after a transient database failure.", transactionsRetried);
    jobRuns.write(out, Type::Counter);
    jobLastRun.write(out, Type::Gauge);
    writeProcessMetrics(out);
  }

  static void single(TextWriter& out, std::string_view name, std::string_view help,
                     const Counter& counter) {
    out.family(name, help, Type::Counter);
    out.sample(name, {}, counter.value());
  }
};

HostFamilies& families() {
  static auto* instance = new HostFamilies;
  return *instance;
}

// Methods are folded to the standard ones so that a client inventing
// methods cannot create series; the index is part of the cache key.
constexpr std::array<std::string_view, 8> kMethods{"GET",   "HEAD",   "POST",    "PUT",
                                                   "PATCH", "DELETE", "OPTIONS", "other"};

std::size_t methodIndex(std::string_view method) {
  for (std::size_t i = 0; i + 1 < kMethods.size(); ++i) {
    if (kMethods[i] == method) return i;
  }
  return kMethods.size() - 1;
}

// Each request thread keeps the instruments it used, keyed by where the
// route text lives (the Router's pattern strings do not move) plus method
// and status, so a request costs a small hash lookup and two atomic adds,
// never the families' mutex. The route text is compared on every hit: a
// pattern freed and another allocated at the same address (a test's second
// Router) must not inherit the first one's series.
struct CacheKey {
  const char* route;
  std::size_t routeSize;
  std::size_t method;
  int status;
  bool operator==(const CacheKey&) const = default;
};

struct CacheKeyHash {
  std::size_t operator()(const CacheKey& k) const noexcept {
    std::size_t h = std::hash<const void*>()(k.route);
    h = h * 31 + k.routeSize;
    h = h * 31 + k.method;
    return h * 31 + static_cast<std::size_t>(k.status);
  }
};

struct CachedSeries {
  std::string route;
  Counter* requests = nullptr;
  Histogram* latency = nullptr;
};

}  // namespace

void requestServed(std::string_view route, std::string_view method, int status,
                   std::chrono::nanoseconds elapsed) {
  thread_local std::unordered_map<CacheKey, CachedSeries, CacheKeyHash> cache;
  const std::size_t m = methodIndex(method);
  CachedSeries& series = cache[CacheKey{route.data(), route.size(), m, status}];
  if (!series.requests || series.route != route) {
    HostFamilies& f = families();
    series.route = std::string(route);
    series.requests =
        &f.requests.with({series.route, std::string(kMethods[m]), std::to_string(status)});
    series.latency = &f.latency.with({series.route});
  }
  series.requests->inc();
  series.latency->observe(elapsed);
}

void rateLimited() {
  families().rateLimited.inc();
}

void loginThrottled() {
  families().loginThrottled.inc();
}

void rateLimitStoreFailed(bool refused) {
  HostFamilies& f = families();
  (refused ? f.storeErrorsRefused : f.storeErrorsServed).inc();
}

void poolSessionLent() {
  families().poolInUse.add(1);
}

void poolSessionReturned() {
  families().poolInUse.add(-1);
}

void poolAcquireWaited() {
  families().poolWaits.inc();
}

void poolAcquireTimedOut() {
  families().poolTimeouts.inc();
}

void transactionRetried() {
  families().transactionsRetried.inc();
}

void registerHostMetrics() {
  families();
}

JobMetrics jobMetrics(const std::string& job) {
  HostFamilies& f = families();
  return JobMetrics{f.jobRuns.with({job, "ok"}), f.jobRuns.with({job, "error"}),
                    f.jobLastRun.with({job})};
}

}  // namespace rapport::host::metrics
