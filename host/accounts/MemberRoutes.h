// The members of the active company (decisions §2, /company/members). The
// company is the token's, as everywhere; the roles below are enforced by the
// route options, the finer rules by the handlers:
//
//   GET    /company/members            any member; paginated, oldest first
//   POST   /company/members            owner or admin; only an owner adds an owner
//   PATCH  /company/members/{user_id}  owner
//   DELETE /company/members/{user_id}  owner or admin; only an owner removes an owner
//
// The last owner can be neither demoted nor removed (409). A removal revokes
// the member's tokens for this company in the same transaction, so they stop
// working at once on every instance; a role change drops the member's cached
// identities so the new role applies to their next request here.
#pragma once

#include "accounts/AccountsContext.h"
#include "accounts/MemberStore.h"
#include "rapport/module.h"

namespace rapport::host::accounts {

class MemberRoutes {
 public:
  explicit MemberRoutes(AccountsContext& context) : ctx_(context) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response list(const rapport::Request& req);
  rapport::Response add(const rapport::Request& req);
  rapport::Response changeRole(const rapport::Request& req);
  rapport::Response remove(const rapport::Request& req);

 private:
  // Inserts the membership; 409 when the user already has one.
  void insertMember(const std::string& companyId, const MemberRecord& member);
  // Locks the company's memberships and reads the member; 404 when absent.
  static MemberRecord lockedMember(Tx& tx, const std::string& companyId, const std::string& userId);
  // 409 when `member`, about to stop being an owner, is the company's only one.
  static void keepAnOwner(Tx& tx, const std::string& companyId, const MemberRecord& member);

  AccountsContext& ctx_;
};

}  // namespace rapport::host::accounts
