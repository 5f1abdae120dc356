#include "accounts/reset/ResetOptions.h"

#include <stdexcept>

namespace rapport::host::accounts::reset {

namespace {

constexpr std::int64_t kWeek = 7 * 24 * 3600;

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

ResetOptions ResetOptions::fromConfig(const rapport::Config& config) {
  ResetOptions o;
  o.tokenTtl = config.getIntBetween("auth.reset_ttl", o.tokenTtl, 1, kWeek);
  o.resetUrl = config.getString("auth.reset_url", "");
  if (!o.resetUrl.empty() &&
      (!(startsWith(o.resetUrl, "https://") || startsWith(o.resetUrl, "http://")) ||
       o.resetUrl.find("{token}") == std::string::npos)) {
    throw std::invalid_argument(
        "auth.reset_url must be an http(s) URL containing {token} (and optionally {email})");
  }
  o.forgotMaxRequests =
      config.getIntBetween("auth.reset.forgot_max_requests", o.forgotMaxRequests, 1, 10000);
  o.forgotWindow = config.getIntBetween("auth.reset.forgot_window", o.forgotWindow, 1, kWeek);
  o.resetMaxAttempts =
      config.getIntBetween("auth.reset.max_attempts", o.resetMaxAttempts, 1, 10000);
  o.resetWindow = config.getIntBetween("auth.reset.window", o.resetWindow, 1, kWeek);
  o.minInterval = config.getIntBetween("auth.reset.min_interval", o.minInterval, 0, 86400);
  return o;
}

}  // namespace rapport::host::accounts::reset
