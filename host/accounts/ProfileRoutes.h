// The caller's own account (decisions §2): GET and PATCH /user/profile,
// PATCH /user/password. Any authenticated user; the user is the token's.
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
  void saveProfile(const UserRecord& user);

  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts
