// What the accounts route handlers share. Built by AccountsModule::setup();
// every reference outlives the handlers (the module owns them and the host
// drops routes before modules).
#pragma once

#include <functional>
#include <optional>

#include "accounts/Clock.h"
#include "accounts/LoginThrottle.h"
#include "accounts/PasswordHasher.h"
#include "accounts/TokenService.h"
#include "accounts/UserStore.h"
#include "mail/Mailer.h"
#include "rapport/db.h"
#include "rapport/http.h"
#include "rapport/log.h"

namespace rapport::host::accounts {

// The two-factor seam: called when a user with two_factor_enabled presents
// the right password, instead of issuing a token. It answers the challenge
// (decisions §4) and keeps `remember` for the token it issues later.
using SecondFactorGate = std::function<rapport::Response(const UserRecord& user, bool remember)>;

struct AccountsContext {
  rapport::Database& db;  // transactions, and autocommit reads as a Queryable
  rapport::Logger& log;
  TokenService& tokens;
  PasswordHasher& hasher;
  mail::Mailer& mailer;  // account mail (reset links, sign-in codes); send() never blocks
  LoginThrottle& throttle;
  Clock clock;
  // Owned by the module, installed by setup() (twofactor::TwoFactor::gate).
  // Empty: login of a 2FA account fails closed (503, no token).
  const SecondFactorGate& secondFactor;
};

}  // namespace rapport::host::accounts
