// API keys (decisions §15, docs/api-keys.md), all owner or admin (a member
// gets 403; a key 403 too, as on every account route: no scope declared):
//
//   POST   /api-keys        {name, scopes, expires_at?}: 201 with `key`, the
//                           only answer that ever shows it
//   GET    /api-keys        the company's keys, newest first, paged
//   GET    /api-keys/{id}
//   PATCH  /api-keys/{id}   {name, scopes}
//   DELETE /api-keys/{id}   revoked at once, on every instance
//
// A change or a deletion forgets the key on every instance with the commit
// (TokenService::forgetKey), so its next request sees it.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "accounts/AccountsContext.h"
#include "accounts/apikeys/ApiKeyStore.h"
#include "rapport/error.h"
#include "rapport/module.h"

namespace rapport::host::accounts::apikeys {

// Every scope a key may hold on this server (Router::scopes()).
using ScopeCatalogue = std::function<std::vector<std::string>()>;

class ApiKeyRoutes {
 public:
  ApiKeyRoutes(AccountsContext& context, ScopeCatalogue scopes)
      : ctx_(context), scopes_(std::move(scopes)) {}

  void registerOn(rapport::Registry& registry);

  rapport::Response create(const rapport::Request& req);
  rapport::Response list(const rapport::Request& req);
  rapport::Response show(const rapport::Request& req);
  rapport::Response update(const rapport::Request& req);
  rapport::Response remove(const rapport::Request& req);

 private:
  // The body's `scopes` (required on create): a non-empty array of known
  // scopes, duplicates dropped, order kept. Failures go to `errors`.
  std::optional<std::vector<std::string>> readScopes(const Json& body, bool required,
                                                     FieldErrors& errors) const;
  // The catalogue, read once, at the first key made or changed: every
  // module's routes are registered by then and never change after.
  const std::vector<std::string>& knownScopes() const;
  // The key of the path in the caller's company; 404 otherwise.
  ApiKeyRecord found(Queryable& db, const rapport::Request& req, bool lock) const;

  AccountsContext& ctx_;
  ScopeCatalogue scopes_;
  mutable std::once_flag scopesRead_;
  mutable std::vector<std::string> knownScopes_;  // sorted
};

}  // namespace rapport::host::accounts::apikeys
