// The user-side company endpoints (decisions §2): GET and POST
// /user/companies, GET /user/companies/{id}. They concern the caller's
// memberships, not the active company, so any authenticated user may call them.
#pragma once

#include "accounts/AccountsContext.h"
#include "rapport/module.h"

namespace rapport::host::accounts {

class CompanyRoutes {
 public:
  explicit CompanyRoutes(AccountsContext& context) : ctx_(context) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response list(const rapport::Request& req);
  rapport::Response create(const rapport::Request& req);
  rapport::Response show(const rapport::Request& req);

 private:
  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts
