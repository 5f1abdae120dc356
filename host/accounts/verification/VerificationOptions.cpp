#include "accounts/verification/VerificationOptions.h"

#include <stdexcept>

namespace rapport::host::accounts::verification {

namespace {

constexpr std::int64_t kVerificationWeek = 7 * 24 * 3600;

bool isLinkTemplate(const std::string& url) {
  return (url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0) &&
         url.find("{token}") != std::string::npos;
}

}  // namespace

VerificationOptions VerificationOptions::fromConfig(const rapport::Config& config) {
  VerificationOptions o;
  o.tokenTtl =
      config.getIntBetween("auth.email_verification_ttl", o.tokenTtl, 60, kVerificationWeek);
  o.verifyUrl = config.getString("auth.email_verification_url", "");
  if (!o.verifyUrl.empty() && !isLinkTemplate(o.verifyUrl)) {
    throw std::invalid_argument(
        "auth.email_verification_url must be an http(s) URL containing {token} (and optionally "
        "{email})");
  }
  o.maxRequests =
      config.getIntBetween("auth.email_verification.max_requests", o.maxRequests, 1, 10000);
  o.window = config.getIntBetween("auth.email_verification.window", o.window, 1, kVerificationWeek);
  o.maxAttempts =
      config.getIntBetween("auth.email_verification.max_attempts", o.maxAttempts, 1, 10000);
  return o;
}

}  // namespace rapport::host::accounts::verification
