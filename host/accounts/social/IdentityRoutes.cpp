#include "accounts/social/IdentityRoutes.h"

#include <algorithm>

#include "accounts/social/SocialStore.h"
#include "rapport/error.h"
#include "rapport/time.h"

namespace rapport::host::accounts::social {

namespace {

Json identityJson(const LinkedIdentity& identity) {
  return Json::object({{"provider", identity.provider},
                       {"email", identity.email ? Json(*identity.email) : Json()},
                       {"created_at", rapport::isoTimestamp(identity.createdAt)},
                       {"last_login_at", rapport::isoTimestamp(identity.lastLoginAt)}});
}

// Two unlinks of one user at once must not both see the other's identity
// and leave a password-less account without a way in: the user's row is
// locked first (SQLite transactions are serialised already).
void lockUserForUnlink(Tx& tx, const std::string& userId) {
  if (tx.dialect() != rapport::Dialect::PostgreSQL) return;
  tx.query("SELECT id FROM users WHERE id = ? FOR UPDATE", {userId});
}

}  // namespace

void IdentityRoutes::registerOn(rapport::Registry& registry) {
  registry.route("GET", "/user/identities", [this](const Request& req) { return list(req); });
  registry.route("DELETE", "/user/identities/{provider}",
                 [this](const Request& req) { return remove(req); });
}

rapport::Response IdentityRoutes::list(const rapport::Request& req) {
  Json items = Json::array();
  for (const LinkedIdentity& identity : store::identitiesOf(ctx_.db, req.identity.userId))
    items.push(identityJson(identity));
  return rapport::Response::ok(std::move(items));
}

rapport::Response IdentityRoutes::remove(const rapport::Request& req) {
  const std::string provider = req.param("provider");
  ctx_.db.transaction("", [&](Tx& tx) {
    lockUserForUnlink(tx, req.identity.userId);
    const std::optional<UserRecord> user = users::findById(tx, req.identity.userId);
    if (!user) throw rapport::Error::unauthorized();
    const std::vector<std::string> linked = store::providersOf(tx, user->id);
    if (std::find(linked.begin(), linked.end(), provider) == linked.end())
      throw rapport::Error::notFound("No identity of this provider is linked to your account.");
    if (!user->passwordHash && linked.size() == 1) {
      throw rapport::Error::conflict(
          "This is the only way to sign in to your account. Set a password with the password "
          "reset first.");
    }
    store::deleteIdentities(tx, user->id, provider);
  });
  ctx_.log.info("social identity unlinked provider=" + provider +
                " user_id=" + req.identity.userId);
  return rapport::Response::messageOnly("The identity has been unlinked.");
}

}  // namespace rapport::host::accounts::social
