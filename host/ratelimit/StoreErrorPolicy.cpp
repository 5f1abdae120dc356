#include "ratelimit/StoreErrorPolicy.h"

#include <chrono>
#include <stdexcept>

#include "log/Log.h"

namespace rapport::host {
namespace {

constexpr auto kStoreWarningInterval = std::chrono::seconds(10);
constexpr std::string_view kAuthPrefix = "/v1/auth/";
constexpr std::string_view kRefreshRoute = "/v1/auth/refresh";

std::int64_t steadyTicks() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

}  // namespace

OnStoreError parseOnStoreError(const std::string& value) {
  if (value == "allow") return OnStoreError::Allow;
  if (value == "deny") return OnStoreError::Deny;
  if (value == "deny_auth") return OnStoreError::DenyAuth;
  throw std::invalid_argument("ratelimit.on_store_error must be allow, deny or deny_auth (got '" +
                              value + "')");
}

OnStoreError onStoreErrorFrom(const rapport::Config& config) {
  return parseOnStoreError(config.getString("ratelimit.on_store_error", "deny_auth"));
}

std::string_view toString(OnStoreError mode) {
  switch (mode) {
    case OnStoreError::Allow:
      return "allow";
    case OnStoreError::Deny:
      return "deny";
    case OnStoreError::DenyAuth:
      return "deny_auth";
  }
  return "deny_auth";
}

bool isAuthRoute(std::string_view pattern, bool isPublic) {
  return isPublic && pattern.starts_with(kAuthPrefix) && pattern != kRefreshRoute;
}

bool StoreErrorPolicy::refuses(bool authRoute) const {
  switch (mode_) {
    case OnStoreError::Allow:
      return false;
    case OnStoreError::Deny:
      return true;
    case OnStoreError::DenyAuth:
      return authRoute;
  }
  return true;
}

void StoreErrorPolicy::report(const std::string& error, bool refused) {
  failures_.fetch_add(1, std::memory_order_relaxed);
  if (refused) refusals_.fetch_add(1, std::memory_order_relaxed);
  std::int64_t due = nextWarning_.load(std::memory_order_relaxed);
  const std::int64_t now = steadyTicks();
  if (now < due) return;
  const std::int64_t next =
      now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(kStoreWarningInterval)
                .count();
  if (!nextWarning_.compare_exchange_strong(due, next)) return;
  log::warn("rate limit store failed",
            {{"error", error},
             {"on_store_error", std::string(toString(mode_))},
             {"failures", std::to_string(failures_.exchange(0, std::memory_order_relaxed))},
             {"refused", std::to_string(refusals_.exchange(0, std::memory_order_relaxed))}});
}

}  // namespace rapport::host
