// What the password reset reads from the configuration (decisions §6).
//
//   auth.reset_ttl                  3600  seconds a reset token is valid
//   auth.reset_url                  unset link template for the mail, with
//                                         {token} and {email} (URL-encoded);
//                                         unset: the mail shows the token
//   auth.reset.forgot_max_requests  5     forgot-password requests per client
//   auth.reset.forgot_window        3600  address within this many seconds
//   auth.reset.max_attempts         10    wrong reset tokens per client address
//   auth.reset.window               3600  within this many seconds
//   auth.reset.min_interval         60    seconds between two reset mails to
//                                         one user (requests in between are
//                                         answered alike and send nothing)
#pragma once

#include <cstdint>
#include <string>

#include "rapport/config.h"

namespace rapport::host::accounts::reset {

struct ResetOptions {
  std::int64_t tokenTtl = 3600;
  std::string resetUrl;  // empty: no link
  std::int64_t forgotMaxRequests = 5;
  std::int64_t forgotWindow = 3600;
  std::int64_t resetMaxAttempts = 10;
  std::int64_t resetWindow = 3600;
  std::int64_t minInterval = 60;

  // Reads the keys above; throws std::invalid_argument naming the key when a
  // value is out of range or auth.reset_url is not an http(s) URL with
  // {token} in it.
  static ResetOptions fromConfig(const rapport::Config& config);
};

}  // namespace rapport::host::accounts::reset
