#include "accounts/SessionRoutes.h"

#include "accounts/CompanyStore.h"
#include "accounts/TokenJson.h"
#include "accounts/apikeys/ApiKeyStore.h"
#include "http/BearerToken.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/roles.h"
#include "rapport/scopes.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::host::accounts {

void SessionRoutes::registerOn(rapport::Registry& registry) {
  // Public: the handler reads the token itself, so that a token refreshed
  // already is recognised (and its family revoked) even once its grace ended
  // and it no longer authenticates. Any failure is the same 401.
  registry.route(
      "POST", "/auth/refresh", [this](const Request& req) { return refresh(req); },
      RouteOptions{.access = Access::Public, .roles = {}});
  registry.route("POST", "/auth/logout", [this](const Request& req) { return logout(req); });
  // The one account route an API key may call: it describes the key.
  registry.route("GET", "/auth/me", [this](const Request& req) { return me(req); },
                 {.scope = std::string(rapport::kAnyApiKey)});
  registry.route("POST", "/auth/context",
                 [this](const Request& req) { return switchContext(req); });
}

rapport::Response SessionRoutes::refresh(const rapport::Request& req) {
  const std::optional<IssuedToken> issued = ctx_.tokens.refresh(bearerToken(req.headers));
  if (!issued) throw rapport::Error::unauthorized();
  return rapport::Response::ok(tokenJson(*issued), "Token refreshed.");
}

rapport::Response SessionRoutes::logout(const rapport::Request& req) {
  ctx_.tokens.revoke(req.identity.tokenId);
  return rapport::Response::messageOnly("Logged out.");
}

rapport::Response SessionRoutes::me(const rapport::Request& req) {
  if (req.identity.isApiKey()) return keyMe(req);
  // The token cache holds the user's public fields: most calls read nothing.
  std::optional<UserSummary> user = ctx_.tokens.cachedUser(bearerToken(req.headers));
  if (!user) {
    const std::optional<UserRecord> record = users::findById(ctx_.db, req.identity.userId);
    // The token was valid a moment ago; a user deleted since is no session.
    if (!record) throw rapport::Error::unauthorized();
    user = UserSummary{.name = record->name,
                       .email = record->email,
                       .twoFactorEnabled = record->twoFactorEnabled,
                       .createdAt = record->createdAt};
  }
  return rapport::Response::ok(
      Json::object({{"id", req.identity.userId},
                    {"name", user->name},
                    {"email", user->email},
                    {"company_id", req.identity.companyId},
                    {"two_factor_enabled", user->twoFactorEnabled},
                    {"created_at", rapport::isoTimestamp(user->createdAt)}}));
}

// An API key (decisions §15): {type, id, name, scopes, company_id}.
rapport::Response SessionRoutes::keyMe(const rapport::Request& req) {
  const auto key = apikeys::find(ctx_.db, req.identity.companyId, req.identity.tokenId);
  // Valid a moment ago; deleted since: no key any more.
  if (!key) throw rapport::Error::unauthorized();
  return rapport::Response::ok(Json::object({{"type", "api_key"},
                                             {"id", key->id},
                                             {"name", key->name},
                                             {"scopes", apikeys::scopesJson(key->scopes)},
                                             {"company_id", key->companyId}}));
}

rapport::Response SessionRoutes::switchContext(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto companyId = v.id("company_id", true);
  v.check();
  const std::string& id = *companyId.value;
  if (id == req.identity.companyId) return switchToCurrent(req);
  std::optional<CompanyRecord> company;
  std::optional<Role> role;
  // The current token is checked first (a refreshed one is reuse: its
  // family is revoked, 401), then these checks, in the same transaction.
  auto admit = [&](Queryable& tx, const std::string&) {
    // A wrong prefix cannot name a company: the same 404 as an absent one.
    if (rapport::hasPrefix(id, "comp_")) company = companies::find(tx, id);
    if (!company) throw rapport::Error::notFound("Company not found.");
    role = companies::roleOf(tx, id, req.identity.userId);
    if (!role) throw rapport::Error::forbidden("You do not have access to this company.");
  };
  // The current token stays valid and keeps resolving its own company.
  const std::optional<IssuedToken> issued = ctx_.tokens.issueForCompany(req.identity, id, admit);
  if (!issued || !company || !role) throw rapport::Error::unauthorized();
  return switched(*issued, *company, *role);
}

rapport::Response SessionRoutes::switchToCurrent(const rapport::Request& req) {
  // The company the token already resolves: the family's next token, as a
  // refresh gives it. The current token then ends after the refresh grace,
  // so no sibling outlives the chain (a copy of the token cannot fork the
  // login), and a token refreshed already is reuse: its family is revoked.
  const std::optional<IssuedToken> issued = ctx_.tokens.refresh(bearerToken(req.headers));
  if (!issued) throw rapport::Error::unauthorized();
  const std::optional<CompanyRecord> company = companies::find(ctx_.db, req.identity.companyId);
  const std::optional<Role> role =
      companies::roleOf(ctx_.db, req.identity.companyId, req.identity.userId);
  if (!company || !role) throw rapport::Error::unauthorized();
  return switched(*issued, *company, *role);
}

rapport::Response SessionRoutes::switched(const IssuedToken& issued, const CompanyRecord& company,
                                          Role role) {
  Json data = tokenJson(issued);
  data.set("company", Json::object({{"id", company.id},
                                    {"name", company.name},
                                    {"role", std::string(rapport::roleName(role))}}));
  data.set("company_id", company.id);
  return rapport::Response::ok(std::move(data), "Company switched.");
}

}  // namespace rapport::host::accounts
