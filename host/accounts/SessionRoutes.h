// The authenticated session endpoints: POST /auth/refresh, POST /auth/logout,
// GET /auth/me and POST /auth/context (company switch). The identity always
// comes from the token (req.identity; refresh reads the bearer token itself,
// see TokenService::refresh); no company header is read. A context switch
// to another company mints a token there and leaves the current one valid
// (the API's state table); it needs a token that was not refreshed (a
// refreshed one is reuse, TokenService::issueForCompany). A switch to the
// company the token already resolves is that token's refresh: the family's
// next token, never a sibling.
#pragma once

#include "accounts/AccountsContext.h"
#include "accounts/CompanyStore.h"
#include "accounts/TokenService.h"
#include "rapport/module.h"
#include "rapport/roles.h"

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
  // GET /auth/me of an API key.
  rapport::Response keyMe(const rapport::Request& req);
  // A switch to the company the token already resolves: its refresh.
  rapport::Response switchToCurrent(const rapport::Request& req);
  static rapport::Response switched(const IssuedToken& issued, const CompanyRecord& company,
                                    Role role);

  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts
