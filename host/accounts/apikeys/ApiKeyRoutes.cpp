#include "accounts/apikeys/ApiKeyRoutes.h"

#include <algorithm>

#include "accounts/apikeys/ApiKeysApiDoc.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/pagination.h"
#include "rapport/validation.h"

namespace rapport::host::accounts::apikeys {
namespace {

constexpr const char* kNotFound = "API key not found.";
constexpr std::size_t kMaxScopes = 100;

StringRule nameRule(bool required) {
  return {.required = required, .min = 1, .max = 100};
}

}  // namespace

void ApiKeyRoutes::registerOn(rapport::Registry& registry) {
  // No scope: an API key cannot manage keys (decisions §15).
  const RouteOptions managers{.access = Access::Authenticated, .roles = {Role::Owner, Role::Admin}};
  registry.route(
      "POST", "/api-keys", [this](const Request& req) { return create(req); }, managers);
  registry.route(
      "GET", "/api-keys", [this](const Request& req) { return list(req); }, managers);
  registry.route(
      "GET", "/api-keys/{id}", [this](const Request& req) { return show(req); }, managers);
  registry.route(
      "PATCH", "/api-keys/{id}", [this](const Request& req) { return update(req); }, managers);
  registry.route(
      "DELETE", "/api-keys/{id}", [this](const Request& req) { return remove(req); }, managers);
  describeApiKeyRoutes(registry);
}

const std::vector<std::string>& ApiKeyRoutes::knownScopes() const {
  std::call_once(scopesRead_, [this] { knownScopes_ = scopes_(); });
  return knownScopes_;
}

std::optional<std::vector<std::string>> ApiKeyRoutes::readScopes(const Json& body, bool required,
                                                                 FieldErrors& errors) const {
  const Json* sent = body.find("scopes");
  if (sent == nullptr || sent->isNull()) {
    if (required) errors["scopes"].push_back("The scopes field is required.");
    return std::nullopt;
  }
  if (!sent->isArray() || sent->asArray().empty() || sent->asArray().size() > kMaxScopes) {
    errors["scopes"].push_back("The scopes must be a list of 1 to 100 scopes.");
    return std::nullopt;
  }
  const std::vector<std::string>& known = knownScopes();
  std::vector<std::string> out;
  for (const Json& scope : sent->asArray()) {
    if (!scope.isString()) {
      errors["scopes"].push_back("Each scope must be a string.");
      return std::nullopt;
    }
    const std::string& name = scope.asString();
    if (!std::binary_search(known.begin(), known.end(), name)) {
      errors["scopes"].push_back("Unknown scope: " + name.substr(0, 100) + ".");
      continue;
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

rapport::Response ApiKeyRoutes::create(const rapport::Request& req) {
  const Json& body = req.bodyObject();
  Validator v(body);
  const auto name = v.string("name", nameRule(true));
  const auto expiresAt = v.timestamp("expires_at");
  FieldErrors errors = v.errors();
  const auto scopes = readScopes(body, true, errors);
  const std::int64_t now = ctx_.clock();
  if (expiresAt.value && *expiresAt.value <= now) {
    errors["expires_at"].push_back("The expires_at must be in the future.");
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));

  const std::string key = std::string(kKeyPrefix) + rapport::randomToken(32);
  ApiKeyRecord record{.id = rapport::newId("key_"),
                      .companyId = req.identity.companyId,
                      .name = *name.value,
                      .keyPrefix = key.substr(0, kShownLength),
                      .scopes = *scopes,
                      .createdBy = req.identity.userId,
                      .createdAt = now,
                      .expiresAt = expiresAt.value,
                      .lastUsedAt = std::nullopt};
  ctx_.db.transaction(record.companyId,
                      [&](Tx& tx) { insert(tx, record, rapport::sha256Hex(key)); });
  Json data = keyJson(record);
  // Shown here, once: only its hash is kept.
  data.set("key", key);
  return rapport::Response::created(std::move(data), "API key created.");
}

rapport::Response ApiKeyRoutes::list(const rapport::Request& req) {
  const PageRequest page = rapport::parsePage(req);
  const std::string& companyId = req.identity.companyId;
  Json items = Json::array();
  for (const ApiKeyRecord& key : apikeys::list(ctx_.db, companyId, page.perPage, page.offset())) {
    items.push(keyJson(key));
  }
  return rapport::Response::list(std::move(items),
                                 rapport::pageMeta(page, count(ctx_.db, companyId)));
}

ApiKeyRecord ApiKeyRoutes::found(Queryable& db, const rapport::Request& req, bool lock) const {
  const std::string& id = req.param("id");
  auto key =
      rapport::hasPrefix(id, "key_") ? find(db, req.identity.companyId, id, lock) : std::nullopt;
  if (!key) throw Error::notFound(kNotFound);
  return *key;
}

rapport::Response ApiKeyRoutes::show(const rapport::Request& req) {
  return rapport::Response::ok(keyJson(found(ctx_.db, req, false)));
}

rapport::Response ApiKeyRoutes::update(const rapport::Request& req) {
  const Json& body = req.bodyObject();
  Validator v(body);
  const auto name = v.string("name", nameRule(false));
  FieldErrors errors = v.errors();
  if (name.isNull()) errors["name"].push_back("The name cannot be empty.");
  const auto scopes = readScopes(body, false, errors);
  if (!errors.empty()) throw Error::validation(std::move(errors));
  ApiKeyRecord key;
  ctx_.db.transaction(req.identity.companyId, [&](Tx& tx) {
    key = found(tx, req, true);
    if (name.value) key.name = *name.value;
    if (scopes) key.scopes = *scopes;
    apikeys::update(tx, key);
    // The new scopes hold from the key's next request, on every instance.
    ctx_.tokens.forgetKey(tx, key.id);
  });
  return rapport::Response::ok(keyJson(key), "API key updated.");
}

rapport::Response ApiKeyRoutes::remove(const rapport::Request& req) {
  std::string id;
  ctx_.db.transaction(req.identity.companyId, [&](Tx& tx) {
    id = found(tx, req, true).id;
    apikeys::remove(tx, req.identity.companyId, id);
    ctx_.tokens.forgetKey(tx, id);
  });
  return rapport::Response::ok(Json::object({{"id", id}}), "API key revoked.");
}

}  // namespace rapport::host::accounts::apikeys
