#include "accounts/MemberRoutes.h"

#include <vector>

#include "accounts/CompanyStore.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/pagination.h"
#include "rapport/query.h"
#include "rapport/validation.h"

namespace rapport::host::accounts {

namespace {

constexpr const char* kAlreadyMember = "The user is already a member of this company.";
constexpr const char* kLastOwner = "The company must keep at least one owner.";
constexpr const char* kMemberNotFound = "Member not found.";

const std::vector<std::string> kRoleNames = {"owner", "admin", "member"};

// The required `role` of POST and PATCH bodies: one of the three names.
Field<std::string> roleField(Validator& v) {
  return v.oneOf("role", kRoleNames, true);
}

// Call after Validator::check(): the field then holds one of kRoleNames.
Role toRole(const Field<std::string>& field) {
  return rapport::parseRole(*field.value).value_or(Role::Member);
}

}  // namespace

void MemberRoutes::registerOn(rapport::Registry& registry) {
  const RouteOptions ownerOrAdmin{.access = Access::Authenticated,
                                  .roles = {Role::Owner, Role::Admin}};
  const RouteOptions ownerOnly{.access = Access::Authenticated, .roles = {Role::Owner}};
  registry.route("GET", "/company/members", [this](const Request& req) { return list(req); });
  registry.route(
      "POST", "/company/members", [this](const Request& req) { return add(req); }, ownerOrAdmin);
  registry.route(
      "PATCH", "/company/members/{user_id}", [this](const Request& req) { return changeRole(req); },
      ownerOnly);
  registry.route(
      "DELETE", "/company/members/{user_id}", [this](const Request& req) { return remove(req); },
      ownerOrAdmin);
}

rapport::Response MemberRoutes::list(const rapport::Request& req) {
  const PageRequest page = rapport::parsePage(req);
  const Sort sort = rapport::parseSort(req, members::sortColumns(), members::defaultSort());
  const std::string& companyId = req.identity.companyId;
  Json items = Json::array();
  for (const MemberRecord& member :
       members::list(ctx_.db, companyId, sort, page.perPage, page.offset())) {
    items.push(members::memberJson(member));
  }
  return rapport::Response::list(
      std::move(items), rapport::pageMeta(page, companies::memberCount(ctx_.db, companyId)));
}

rapport::Response MemberRoutes::add(const rapport::Request& req) {
  Validator v(req.bodyObject());
  const Field<std::string> email = v.email("email", true);
  const Field<std::string> roleName = roleField(v);
  v.check();
  const Role role = toRole(roleName);
  // Owners hold every power, including over other owners: only they make one.
  if (role == Role::Owner && req.identity.role != Role::Owner) {
    throw rapport::Error::forbidden("Only an owner may add an owner.");
  }
  const std::optional<UserRecord> user = users::findByEmail(ctx_.db, *email.value);
  if (!user) throw rapport::Error::notFound("User not found.");
  const MemberRecord member{user->id, user->name, user->email, role, ctx_.clock()};
  insertMember(req.identity.companyId, member);
  ctx_.log.info("member added company_id=" + req.identity.companyId + " user_id=" + user->id +
                " role=" + std::string(rapport::roleName(role)));
  return rapport::Response::created(members::memberJson(member), "Member added.");
}

void MemberRoutes::insertMember(const std::string& companyId, const MemberRecord& member) {
  // The membership's primary key refuses a second one, whoever adds it first.
  rapport::conflictOnDuplicate(kAlreadyMember, [&] {
    companies::addMember(ctx_.db, companyId, member.userId, member.role, member.joinedAt);
  });
}

rapport::Response MemberRoutes::changeRole(const rapport::Request& req) {
  Validator v(req.bodyObject());
  const Field<std::string> roleName = roleField(v);
  v.check();
  const Role role = toRole(roleName);
  const std::string& companyId = req.identity.companyId;
  const std::string& userId = req.param("user_id");
  MemberRecord member;
  ctx_.db.transaction(companyId, [&](Tx& tx) {
    member = lockedMember(tx, companyId, userId);
    if (role != Role::Owner) keepAnOwner(tx, companyId, member);
    members::updateRole(tx, companyId, userId, role);
    member.role = role;
    // Cached identities carry the old role; the next request must read the
    // new one, on every instance (the notice goes with the commit).
    ctx_.tokens.invalidateUser(tx, userId);
  });
  ctx_.log.info("member role changed company_id=" + companyId + " user_id=" + userId +
                " role=" + std::string(rapport::roleName(role)));
  return rapport::Response::ok(members::memberJson(member), "Member updated.");
}

rapport::Response MemberRoutes::remove(const rapport::Request& req) {
  const std::string& companyId = req.identity.companyId;
  const std::string& userId = req.param("user_id");
  ctx_.db.transaction(companyId, [&](Tx& tx) {
    const MemberRecord member = lockedMember(tx, companyId, userId);
    if (member.role == Role::Owner && req.identity.role != Role::Owner) {
      throw rapport::Error::forbidden("Only an owner may remove an owner.");
    }
    keepAnOwner(tx, companyId, member);
    members::remove(tx, companyId, userId);
    // Revoked in the same commit: every instance refuses the tokens at once.
    ctx_.tokens.revokeMembership(tx, userId, companyId);
  });
  ctx_.log.info("member removed company_id=" + companyId + " user_id=" + userId);
  return rapport::Response::messageOnly("Member removed.");
}

MemberRecord MemberRoutes::lockedMember(Tx& tx, const std::string& companyId,
                                        const std::string& userId) {
  // A wrong prefix cannot name a user: the same 404 as an absent member.
  if (!rapport::hasPrefix(userId, "user_")) throw rapport::Error::notFound(kMemberNotFound);
  members::lockCompany(tx, companyId);
  const std::optional<MemberRecord> member = members::find(tx, companyId, userId);
  if (!member) throw rapport::Error::notFound(kMemberNotFound);
  return *member;
}

void MemberRoutes::keepAnOwner(Tx& tx, const std::string& companyId, const MemberRecord& member) {
  if (member.role == Role::Owner && members::ownerCount(tx, companyId) <= 1) {
    throw rapport::Error::conflict(kLastOwner);
  }
}

}  // namespace rapport::host::accounts
