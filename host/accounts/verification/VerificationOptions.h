// What e-mail verification reads from the configuration (docs/accounts.md,
// "E-mail verification").
//
//   auth.email_verification_ttl               86400  seconds a verification
//                                                    token is valid
//   auth.email_verification_url               unset  link template for the
//                                                    mail, with {token} and
//                                                    {email} (URL-encoded);
//                                                    unset: the mail shows
//                                                    the token
//   auth.email_verification.max_requests      5      verification mails asked
//   auth.email_verification.window            3600   per user, and per client
//                                                    address, within this
//                                                    many seconds
//   auth.email_verification.max_attempts      10     wrong tokens per client
//                                                    address within the
//                                                    window above
#pragma once

#include <cstdint>
#include <string>

#include "rapport/config.h"

namespace rapport::host::accounts::verification {

struct VerificationOptions {
  std::int64_t tokenTtl = 86400;
  std::string verifyUrl;  // empty: no link
  std::int64_t maxRequests = 5;
  std::int64_t window = 3600;
  std::int64_t maxAttempts = 10;

  // Reads the keys above; throws std::invalid_argument naming the key when a
  // value is out of range or the URL is not an http(s) URL with {token}.
  static VerificationOptions fromConfig(const rapport::Config& config);
};

}  // namespace rapport::host::accounts::verification
