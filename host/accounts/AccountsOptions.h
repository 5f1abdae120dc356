// Everything accounts reads from the operator's configuration, with the
// defaults of decisions §3 and §12. Read once at start-up.
//
//   auth.token_ttl             3600     seconds, a normal token's lifetime
//   auth.remember_ttl          2592000  seconds, with remember_me (30 days)
//   auth.token_cache_ttl       10       seconds before a cached identity
//                                       (user, company, role) is re-read; the
//                                       bound on a role change made by another
//                                       instance (TokenService.h)
//   auth.token_cache_size      100000   cached tokens at most
//   auth.refresh_grace         60       seconds the old token keeps working
//                                       after a refresh (0: it stops at once)
//   auth.max_session_age       7776000  seconds a login lasts at most, refreshes
//                                       included (90 days; TokenService.h)
//   auth.argon2.memory_kib     19456    argon2id memory (OWASP minimum)
//   auth.argon2.iterations     2
//   auth.argon2.parallelism    1
//   auth.argon2.max_concurrent 0        argon2 computations at once (0: cores)
//   auth.argon2.queue_timeout  5000     ms a computation waits for a slot, then 503
//   auth.login.max_attempts    5        failed logins per e-mail and address...
//   auth.login.window          60       ...within this many seconds, then 429
//   auth.login.account_max_attempts 20  failed logins per e-mail from anywhere...
//   auth.login.account_window  600      ...within this many seconds slow the account:
//   auth.login.account_interval 30      then one attempt per this many seconds
//                                       (LoginThrottle.h)
#pragma once

#include <cstdint>

#include "accounts/LoginThrottle.h"
#include "accounts/PasswordHasher.h"
#include "accounts/TokenService.h"
#include "rapport/config.h"

namespace rapport::host::accounts {

struct AccountsOptions {
  std::int64_t tokenTtl = 3600;
  std::int64_t rememberTtl = 2592000;
  std::int64_t cacheTtlSeconds = 10;
  std::int64_t cacheCapacity = 100000;
  std::int64_t refreshGrace = 60;
  std::int64_t maxSessionAge = 7776000;
  Argon2Params argon2;
  std::int64_t loginMaxAttempts = 5;
  std::int64_t loginWindow = 60;
  std::int64_t loginAccountMaxAttempts = 20;
  std::int64_t loginAccountWindow = 600;
  std::int64_t loginAccountInterval = 30;

  // Reads the keys above; throws std::invalid_argument naming the key when a
  // value is not an integer or out of range (argon2 below the OWASP minimum).
  static AccountsOptions fromConfig(const rapport::Config& config);

  TokenOptions tokenOptions() const;
  LoginLimits loginLimits() const;
};

}  // namespace rapport::host::accounts
