// The provider identities linked to the caller's account (docs/social-login.md,
// "Linked identities"): GET /user/identities lists them, DELETE
// /user/identities/{provider} unlinks that provider's (authenticated, the
// caller's own account only).
//
// Unlinking asks no password: it only takes a way in away, and whoever
// holds the session could sign in anyway. It refuses (409) to remove the
// last way in of an account without a password; that user sets one with
// the password reset first (the check and the delete hold the user's row).
// A provider with nothing linked is 404.
//
// The password reset can unlink every identity too (`remove_identities`,
// reset/ResetIdentities.h): the way out for someone who finds an identity
// they never linked and cannot sign in.
#pragma once

#include "accounts/AccountsContext.h"
#include "rapport/module.h"

namespace rapport::host::accounts::social {

class IdentityRoutes {
 public:
  explicit IdentityRoutes(AccountsContext& context) : ctx_(context) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response list(const rapport::Request& req);
  rapport::Response remove(const rapport::Request& req);

 private:
  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts::social
