#include "accounts/twofactor/TwoFactorOptions.h"

#include <stdexcept>
#include <string>

namespace rapport::host::accounts::twofactor {

TwoFactorOptions TwoFactorOptions::fromConfig(const rapport::Config& config) {
  TwoFactorOptions o;
  const std::int64_t status =
      config.getIntBetween("auth.two_factor_status", o.loginStatus, 200, 403);
  if (status != 200 && status != 403) {
    throw std::invalid_argument("auth.two_factor_status must be 403 or 200 (got " +
                                std::to_string(status) + ")");
  }
  o.loginStatus = static_cast<int>(status);
  o.challengeTtl = config.getIntBetween("auth.two_factor.challenge_ttl", o.challengeTtl, 1, 86400);
  return o;
}

}  // namespace rapport::host::accounts::twofactor
