// The authenticated session endpoints: POST /auth/refresh, POST /auth/logout,
// GET /auth/me and POST /auth/context (company switch). The identity always
// comes from the token (req.identity; refresh reads the bearer token itself,
// see TokenService::refresh); no company header is read. A context switch
// names another company (its own: 422 on company_id) and needs a token that
// was not refreshed (a refreshed one is reuse, TokenService::issueForCompany).
#pragma once

#include "accounts/AccountsContext.h"
#include "rapport/module.h"

namespace rapport::host::accounts {

class SessionRoutes {
 public:
  explicit SessionRoutes(AccountsContext& context) : ctx_(context) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response refresh(const rapport::Request& req);
  rapport::Response logout(const rapport::Request& req);
  rapport::Response me(const rapport::Request& req);
  rapport::Response switchContext(const rapport::Request& req);

 private:
  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts
