#include "accounts/AccountsOptions.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace rapport::host::accounts {

namespace {

// Argon2 values are range-checked by Argon2Params::validate(); this only
// keeps them inside uint32 so the narrowing cannot wrap.
std::uint32_t readU32(const rapport::Config& config, const std::string& key,
                      std::uint32_t fallback) {
  return static_cast<std::uint32_t>(
      config.getIntBetween(key, fallback, 0, std::numeric_limits<std::uint32_t>::max()));
}

constexpr std::int64_t kTenYears = 10LL * 365 * 24 * 3600;

}  // namespace

AccountsOptions AccountsOptions::fromConfig(const rapport::Config& config) {
  AccountsOptions o;
  o.tokenTtl = config.getIntBetween("auth.token_ttl", o.tokenTtl, 1, kTenYears);
  o.rememberTtl = config.getIntBetween("auth.remember_ttl", o.rememberTtl, 1, kTenYears);
  o.cacheTtlSeconds = config.getIntBetween("auth.token_cache_ttl", o.cacheTtlSeconds, 0, 3600);
  o.cacheCapacity = config.getIntBetween("auth.token_cache_size", o.cacheCapacity, 1, 100'000'000);
  o.refreshGrace = config.getIntBetween("auth.refresh_grace", o.refreshGrace, 0, 86400);
  o.maxSessionAge = config.getIntBetween("auth.max_session_age", o.maxSessionAge, 1, kTenYears);
  o.argon2.memoryKib = readU32(config, "auth.argon2.memory_kib", o.argon2.memoryKib);
  o.argon2.iterations = readU32(config, "auth.argon2.iterations", o.argon2.iterations);
  o.argon2.parallelism = readU32(config, "auth.argon2.parallelism", o.argon2.parallelism);
  o.argon2.maxConcurrent = readU32(config, "auth.argon2.max_concurrent", o.argon2.maxConcurrent);
  o.argon2.queueTimeoutMs = readU32(config, "auth.argon2.queue_timeout", o.argon2.queueTimeoutMs);
  o.argon2.validate();
  o.loginMaxAttempts = config.getIntBetween("auth.login.max_attempts", o.loginMaxAttempts, 1, 1000);
  o.loginWindow = config.getIntBetween("auth.login.window", o.loginWindow, 1, 86400);
  o.loginAccountMaxAttempts =
      config.getIntBetween("auth.login.account_max_attempts", o.loginAccountMaxAttempts, 1, 100000);
  o.loginAccountWindow =
      config.getIntBetween("auth.login.account_window", o.loginAccountWindow, 1, 86400);
  o.loginAccountInterval =
      config.getIntBetween("auth.login.account_interval", o.loginAccountInterval, 1, 3600);
  return o;
}

TokenOptions AccountsOptions::tokenOptions() const {
  TokenOptions t;
  t.tokenTtl = tokenTtl;
  t.rememberTtl = rememberTtl;
  t.cacheTtlSeconds = cacheTtlSeconds;
  t.cacheCapacity = static_cast<std::size_t>(cacheCapacity);
  t.refreshGrace = refreshGrace;
  t.maxSessionAge = maxSessionAge;
  return t;
}

LoginLimits AccountsOptions::loginLimits() const {
  return {.maxAttempts = loginMaxAttempts,
          .window = loginWindow,
          .accountMaxAttempts = loginAccountMaxAttempts,
          .accountWindow = loginAccountWindow,
          .accountInterval = loginAccountInterval};
}

}  // namespace rapport::host::accounts
