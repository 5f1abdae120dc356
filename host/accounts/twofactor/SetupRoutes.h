// Turning two-factor login on and off (decisions §4), all authenticated:
//
//   POST   /auth/2fa/enable {password?} -> {secret, otpauth_uri}; 409 when
//          on (checked first). Whoever holds a stolen token must not bind
//          the account to their own authenticator ("sudo mode"): a session
//          whose sign-in (login, social login; a refresh or switch keeps
//          its time) is older than kFreshSignInSeconds must send the
//          password, missing or wrong: 422 on `password` (counted by the
//          login throttle). A fresh sign-in needs no body, as decisions §4
//          has it; a password sent is always checked. A user without a
//          password (social login) has no code yet either: an older session
//          answers 403 and the user signs in again. Again before confirm: a
//          new pending secret replaces the old one.
//   POST   /auth/2fa/confirm {code}  -> {recovery_codes}: 8 codes; 2FA on.
//          Wrong code 422 on `code`; nothing pending (or already on) 409.
//          The user's other tokens are revoked (the current one stays).
//   DELETE /auth/2fa {password}      -> off: secret and codes deleted.
//          Wrong password 422 on `password`; 409 when off. A user without
//          a password (social login) confirms with `code` instead (a
//          current TOTP code or a recovery code).
//   POST   /auth/2fa/recovery-codes {password} -> {recovery_codes}: 8 new
//          codes, the old ones dead; 409 when off; the same confirmation
//          as DELETE.
//
// Every change forgets the user's cached identities
// (TokenService::invalidateUser): GET /auth/me shows two_factor_enabled.
#pragma once

#include <cstdint>
#include <string>

#include "accounts/AccountsContext.h"
#include "rapport/module.h"
#include "rapport/secrets.h"

namespace rapport::host::accounts::twofactor {

// How recent a password-less user's sign-in must be to turn two-factor on.
inline constexpr std::int64_t kFreshSignInSeconds = 600;

class SetupRoutes {
 public:
  SetupRoutes(AccountsContext& context, const rapport::SecretBox& secrets)
      : ctx_(context), secrets_(secrets) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response enable(const rapport::Request& req);
  rapport::Response confirm(const rapport::Request& req);
  rapport::Response disable(const rapport::Request& req);
  rapport::Response regenerateRecoveryCodes(const rapport::Request& req);

 private:
  UserRecord currentUser(const rapport::Request& req);
  // The password of the body; 422 on `password` when missing or wrong.
  void requirePassword(const rapport::Request& req, const UserRecord& user);
  // Whether the caller's session started (a sign-in, not a refresh or a
  // switch) within kFreshSignInSeconds.
  bool signedInRecently(const rapport::Request& req) const;
  // For a user without a password: 403 unless signedInRecently.
  void requireFreshSignIn(const rapport::Request& req);
  // The password (or, for a user without one, a current TOTP or recovery
  // code) of the body; 422 on the field when it is missing or wrong.
  void requireConfirmation(const rapport::Request& req, const UserRecord& user);
  // Fresh recovery codes stored in `tx` (the old ones deleted); returns them
  // in display form.
  Json storeNewRecoveryCodes(Tx& tx, const std::string& userId, std::int64_t now);

  AccountsContext& ctx_;
  const rapport::SecretBox& secrets_;
};

}  // namespace rapport::host::accounts::twofactor
