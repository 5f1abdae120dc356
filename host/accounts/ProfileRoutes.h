// The caller's own account (decisions §2): GET and PATCH /user/profile,
// PATCH /user/password. Any authenticated user; the user is the token's.
//
// Changing the e-mail (to another address, not just another spelling of the
// same one) needs `current_password` too: 422 on current_password when it
// is missing or wrong (throttled like a password change); a user without a
// password (social login only) gets 422 on email and sets a password
// through the password reset first. Name-only changes need nothing.
//
// A password change checks the current password under the login throttle
// (the same counter as login: wrong current passwords are password guesses
// too), then revokes every other token of the user in the same transaction;
// the token that made the change keeps working.
#pragma once

#include "accounts/AccountsContext.h"
#include "rapport/module.h"

namespace rapport::host::accounts {

class ProfileRoutes {
 public:
  explicit ProfileRoutes(AccountsContext& context) : ctx_(context) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response show(const rapport::Request& req);
  rapport::Response update(const rapport::Request& req);
  rapport::Response changePassword(const rapport::Request& req);

 private:
  // The caller's user row; 401 when it vanished since the token was checked.
  UserRecord currentUser(const rapport::Request& req);
  // 422 on current_password (429 when throttled) unless it is the user's.
  void requireCurrentPassword(const rapport::Request& req, const UserRecord& user,
                              const std::string& password);
  // The e-mail change's password check (see above).
  void requirePasswordForEmail(const rapport::Request& req, const UserRecord& user,
                               const std::optional<std::string>& password);
  void saveProfile(const UserRecord& user);

  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts
