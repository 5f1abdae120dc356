// The public sign-in endpoints: POST /auth/register and POST /auth/login.
#pragma once

#include "accounts/AccountsContext.h"
#include "rapport/module.h"

namespace rapport::host::accounts {

class AuthRoutes {
 public:
  explicit AuthRoutes(AccountsContext& context) : ctx_(context) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response registerUser(const rapport::Request& req);
  rapport::Response login(const rapport::Request& req);

 private:
  // False for an unknown e-mail or a user without a password too, after
  // spending the same time as a real verification.
  bool passwordMatches(const std::optional<UserRecord>& user, const std::string& password);

  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts
