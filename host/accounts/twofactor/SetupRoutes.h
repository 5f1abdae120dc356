// Turning two-factor login on and off (decisions §4), all authenticated:
//
//   POST   /auth/2fa/enable          -> {secret, otpauth_uri}; 409 when on.
//          Again before confirm: a new pending secret replaces the old one.
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

#include <string>

#include "accounts/AccountsContext.h"
#include "rapport/module.h"
#include "rapport/secrets.h"

namespace rapport::host::accounts::twofactor {

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
