// Two-factor route tests on an AccountsHarness (both engines): helpers to
// enable 2FA for a user, log in and complete the challenge. TOTP codes come
// from oathtool at the harness clock's time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/OathTool.h"
#include "unit/accounts/AccountsHarness.h"

namespace rapport::test::twofactor {

using rapport::test::oathCode;

using rapport::Json;
using rapport::Response;
using rapport::test::accounts::AccountsHarness;

// The password AccountsHarness::registerUser gives every user.
inline const std::string kPassword = "ann-s3cret-phrase";

struct TwoFactorUser {
  AccountsHarness::User user;
  std::string secret;
  std::vector<std::string> recoveryCodes;
};

class TwoFactorFixture {
 public:
  AccountsHarness h;

  std::int64_t unixNow() const { return h.time.now() / 1'000'000; }
  // The code of the current step.
  std::string code(const std::string& secret) const { return oathCode(secret, unixNow()); }
  // Moves the clock one step on and returns that step's code (a fresh code:
  // the previous one was accepted already).
  std::string nextCode(const std::string& secret) {
    h.time.advanceSeconds(30);
    return code(secret);
  }

  // POST /auth/2fa/enable with the password (the harness's by default).
  Response enable(const std::string& token, const std::string& password = kPassword) {
    return h.call("POST", "/auth/2fa/enable", token, Json::object({{"password", password}}));
  }

  // Registers `email`, enables and confirms 2FA; the clock is left on the
  // step the confirmation used.
  TwoFactorUser enabledUser(const std::string& email) {
    TwoFactorUser out;
    out.user = h.registerUser(email);
    const Json enabled = *enable(out.user.token).data;
    out.secret = enabled["secret"].asString();
    const Json confirmed = *h.call("POST", "/auth/2fa/confirm", out.user.token,
                                   Json::object({{"code", code(out.secret)}}))
                                .data;
    for (const Json& c : confirmed["recovery_codes"].asArray()) {
      out.recoveryCodes.push_back(c.asString());
    }
    return out;
  }

  Response login(const std::string& email, bool remember = false,
                 const std::string& password = kPassword) {
    return h.callPublic(
        "POST", "/auth/login",
        Json::object({{"email", email}, {"password", password}, {"remember_me", remember}}));
  }
  // Logs in and returns the challenge id (asserting the challenge answer).
  std::string challenge(const std::string& email, bool remember = false) {
    const Response r = login(email, remember);
    if (r.status != 403 || !r.data) throw std::runtime_error("login gave no challenge");
    return (*r.data)["challenge_id"].asString();
  }
  Response complete(const std::string& challengeId, const std::string& code,
                    const std::string& path = "/auth/two-factor/challenge") {
    const std::string idField =
        path == "/auth/two-factor/challenge" ? "challenge_id" : "two_factor_token";
    return h.callPublic("POST", path, Json::object({{idField, challengeId}, {"code", code}}));
  }
  Response completeWithRecovery(const std::string& challengeId, const std::string& recovery) {
    return h.callPublic("POST", "/auth/two-factor/challenge",
                        Json::object({{"challenge_id", challengeId}, {"recovery_code", recovery}}));
  }
  std::int64_t count(const std::string& sql, const rapport::Params& params = {}) {
    return h.count(sql, params);
  }
};

// The Retry-After header of a 429 (-1 when absent).
inline long retryAfter(const rapport::Error& e) {
  for (const auto& [name, value] : e.headers()) {
    if (name == "Retry-After") return std::stol(value);
  }
  return -1;
}

}  // namespace rapport::test::twofactor
