#include "accounts/apikeys/ApiKeysApiDoc.h"

#include "rapport/api_doc.h"

namespace rapport::host::accounts::apikeys {
namespace {

const char* const kTag = "api keys";
const char* const kWho = "Owners and admins; members and API keys get 403.";

Json keyProperties(bool withKey) {
  schema::Properties properties = {
      {"id", schema::id("key_")},
      {"name", schema::text(100)},
      {"scopes", schema::arrayOf(schema::string("contacts:read, webhooks:manage, *, ..."))},
      {"key_prefix", schema::string("the key's first 11 characters, for recognition")},
      {"created_at", schema::timestamp()},
      {"expires_at", schema::nullable(schema::timestamp())},
      {"last_used_at", schema::nullable(schema::timestamp("written at most once a minute"))},
      {"created_by", schema::id("user_")}};
  std::vector<std::string> required = {"id",         "name",       "scopes",       "key_prefix",
                                       "created_at", "expires_at", "last_used_at", "created_by"};
  if (withKey) {
    properties.push_back({"key", schema::string("rk_...: shown in this answer only")});
    required.push_back("key");
  }
  return schema::object(std::move(properties), std::move(required));
}

Json keyBody(bool creating) {
  schema::Properties properties = {
      {"name", schema::text(100)},
      {"scopes", schema::arrayOf(schema::string(), "1 to 100 known scopes")}};
  if (creating) {
    properties.push_back(
        {"expires_at", schema::nullable(schema::timestamp("in the future; null: never"))});
  }
  return schema::object(std::move(properties), creating ? std::vector<std::string>{"name", "scopes"}
                                                        : std::vector<std::string>{});
}

}  // namespace

void describeApiKeyRoutes(rapport::Registry& registry) {
  registry.schema("ApiKey", keyProperties(false));
  registry.describe(
      "POST", "/api-keys",
      {.summary = "Create an API key",
       .description = std::string(kWho) + " The answer is the only one that shows `key`: keep it.",
       .tag = kTag,
       .body = keyBody(true),
       .status = 201,
       .data = keyProperties(true)});
  registry.describe("GET", "/api-keys",
                    {.summary = "List the company's API keys",
                     .description = std::string(kWho) + " Newest first; never `key`.",
                     .tag = kTag,
                     .query = schema::object(
                         {{"page", schema::integer("1 or more; default 1.").set("minimum", 1)},
                          {"per_page", schema::integerBetween(1, 100, "Default 20.")}}),
                     .data = schema::arrayOf(schema::ref("ApiKey")),
                     .paged = true});
  registry.describe("GET", "/api-keys/{id}",
                    {.summary = "Get an API key",
                     .description = kWho,
                     .tag = kTag,
                     .data = schema::ref("ApiKey")});
  registry.describe(
      "PATCH", "/api-keys/{id}",
      {.summary = "Rename an API key or change its scopes",
       .description = std::string(kWho) + " The change holds from the key's next request.",
       .tag = kTag,
       .body = keyBody(false),
       .data = schema::ref("ApiKey")});
  registry.describe(
      "DELETE", "/api-keys/{id}",
      {.summary = "Revoke an API key",
       .description = std::string(kWho) + " The key answers 401 at once, on every instance.",
       .tag = kTag,
       .data = schema::object({{"id", schema::id("key_")}}, {"id"})});
}

}  // namespace rapport::host::accounts::apikeys
