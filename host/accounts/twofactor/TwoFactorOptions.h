// What two-factor login reads from the operator's configuration, read once
// at start-up (AccountsOptions::fromConfig calls fromConfig).
//
//   auth.two_factor_status          403  status of a login that needs the
//                                        second factor: 403 or 200 (decisions §4)
//   auth.two_factor.challenge_ttl   600  seconds a login challenge lives
//                                        (decisions §4: 10 minutes; smaller
//                                        values are for tests)
//
// The other numbers of decisions §4 are the contract, not settings: 5 wrong
// codes end a challenge, one resend per 30 s, an e-mailed code lives 10
// minutes, 8 recovery codes.
#pragma once

#include <cstdint>

#include "rapport/config.h"

namespace rapport::host::accounts::twofactor {

struct TwoFactorOptions {
  int loginStatus = 403;
  std::int64_t challengeTtl = 600;  // seconds

  // Throws std::invalid_argument naming the key when a value is out of range
  // (a status other than 403 or 200 included).
  static TwoFactorOptions fromConfig(const rapport::Config& config);
};

}  // namespace rapport::host::accounts::twofactor
