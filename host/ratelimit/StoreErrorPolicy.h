// What a request gets when the rate-limit store cannot count it (ratelimit.store
// = redis, and redis is down, too slow, or answers an error):
// ratelimit.on_store_error.
//
//   allow      served, uncounted: the rate limit fails open
//   deny       refused
//   deny_auth  (the default) refused on the auth routes, served elsewhere
//
// The auth routes are the public routes under /v1/auth/ (login, register,
// forgot/reset-password, the two-factor challenges, social login and its
// callbacks): where a guesser or a spammer works without a token, and
// where the rate limit is the only count (the login throttle covers
// password checks alone). /v1/auth/refresh is not one of them: its
// credential is a token nobody can guess, and refusing it would log every
// user out during an outage. Requests with a token, and the health probes
// (never counted), stay served under deny_auth.
//
// A refusal is 503 with Retry-After: 1, not 429: the client did nothing
// wrong (it may have sent one request), the server cannot count; 429 would
// tell it to slow down and hide a server fault among client ones in
// dashboards, while 503 says "temporarily unavailable, try again" and
// shows as the server's.
//
// Every failure is counted by the caller (metrics: the Pipeline); report()
// logs a warning at most once per 10 s, with how many failures and
// refusals there were since the last one.
//
// Threading: any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "rapport/config.h"

namespace rapport::host {

enum class OnStoreError { Allow, Deny, DenyAuth };

// "allow", "deny", "deny_auth"; throws std::invalid_argument naming the
// key and the values for anything else.
OnStoreError parseOnStoreError(const std::string& value);
// ratelimit.on_store_error (default deny_auth).
OnStoreError onStoreErrorFrom(const rapport::Config& config);
std::string_view toString(OnStoreError mode);

// Whether a path (a route's pattern) is an auth route, above. `isPublic`:
// the route takes no token.
bool isAuthRoute(std::string_view pattern, bool isPublic);

class StoreErrorPolicy {
 public:
  explicit StoreErrorPolicy(OnStoreError mode) : mode_(mode) {}
  StoreErrorPolicy(const StoreErrorPolicy&) = delete;
  StoreErrorPolicy& operator=(const StoreErrorPolicy&) = delete;

  OnStoreError mode() const { return mode_; }
  // Whether a request the store could not count is refused.
  bool refuses(bool authRoute) const;
  // One failure (`refused`: what refuses() decided): a warning "rate limit
  // store failed" with `error` and the counts since the last warning, at
  // most once per 10 s.
  void report(const std::string& error, bool refused);

 private:
  const OnStoreError mode_;
  std::atomic<std::uint64_t> failures_{0};  // since the last warning
  std::atomic<std::uint64_t> refusals_{0};
  std::atomic<std::int64_t> nextWarning_{0};  // steady_clock ticks
};

}  // namespace rapport::host
