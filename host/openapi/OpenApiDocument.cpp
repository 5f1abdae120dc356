#include "openapi/OpenApiDocument.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "conditional/ConditionalRoutes.h"
#include "http/VersionPolicy.h"
#include "openapi/CustomFieldsDocument.h"
#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/scopes.h"

#ifndef RAPPORT_SERVER_VERSION
#error "RAPPORT_SERVER_VERSION must be defined (host/CMakeLists.txt)"
#endif

namespace rapport::host {
namespace {

using rapport::Json;
namespace schema = rapport::schema;

// The shared error answers (components/responses), by status.
struct ErrorAnswer {
  int status;
  const char* name;
  const char* description;
};

constexpr ErrorAnswer kErrorAnswers[] = {
    {400, "BadRequest", "The body is not valid JSON, or not a JSON object."},
    {401, "Unauthorized", "No token, or an expired or revoked one."},
    {403, "Forbidden", "The caller's role may not do this."},
    {404, "NotFound", "The record (or a record it references) does not exist for this caller."},
    {409, "Conflict", "The change conflicts with a stored record (a duplicate value)."},
    {410, "Gone", "The endpoint, or the API version, has been sunset (or a cursor is too old)."},
    {413, "PayloadTooLarge", "The body is over the server's limit (server.max_body_bytes)."},
    {422, "ValidationFailed", "A field breaks its rule; `errors` names each one."},
    {429, "TooManyRequests", "The rate limit (or a guessing limit) was reached."},
    {500, "InternalError", "Something broke; the message is generic, the log has the details."},
    {503, "Unavailable", "The database is busy or unreachable; nothing changed, send it again."},
};

const ErrorAnswer* errorAnswer(int status) {
  for (const auto& answer : kErrorAnswers) {
    if (answer.status == status) return &answer;
  }
  return nullptr;
}

Json headerRef(const char* name) {
  return Json::object({{"$ref", std::string("#/components/headers/") + name}});
}

// What every answer carries (decisions §1, §9).
Json commonHeaders() {
  return Json::object({{"X-Request-Id", headerRef("X-Request-Id")},
                       {"X-RateLimit-Limit", headerRef("X-RateLimit-Limit")},
                       {"X-RateLimit-Remaining", headerRef("X-RateLimit-Remaining")},
                       {"X-RateLimit-Reset", headerRef("X-RateLimit-Reset")}});
}

Json jsonContent(Json schemaValue) {
  return Json::object({{"application/json", Json::object({{"schema", std::move(schemaValue)}})}});
}

// Headers marked required are on every answer that lists them
// (Pipeline::finish; Error::tooManyRequests), and api.check_responses holds
// the server to it.
Json headerComponents() {
  auto header = [](const char* description, Json value, bool required = false) {
    Json out = Json::object({{"description", description}, {"schema", std::move(value)}});
    if (required) out.set("required", true);
    return out;
  };
  return Json::object(
      {{"X-Request-Id",
        header("The request's id, also in the server's log.", schema::string(), true)},
       {"X-RateLimit-Limit", header("Requests allowed per window.", schema::integer(), true)},
       {"X-RateLimit-Remaining", header("Requests left in this window.", schema::integer(), true)},
       {"X-RateLimit-Reset", header("Unix time when the window ends.", schema::integer(), true)},
       {"Retry-After", header("Whole seconds to wait, at least 1.", schema::integer(), true)},
       // A 503 has it when the server knows (a busy database), not always.
       {"Retry-After-Optional",
        header("Whole seconds to wait, at least 1; sent when the server knows (a busy "
               "database: 1).",
               schema::integer())},
       {"ETag", header("The record's strong entity tag, for If-Match and If-None-Match.",
                       schema::string())},
       {"Idempotent-Replayed",
        header("\"true\" when this is the kept answer of an earlier request with the same "
               "Idempotency-Key.",
               schema::enumOf({"true"}))}});
}

Json responseComponents() {
  Json out = Json::object();
  for (const auto& answer : kErrorAnswers) {
    Json headers = commonHeaders();
    if (answer.status == 429) headers.set("Retry-After", headerRef("Retry-After"));
    if (answer.status == 503) headers.set("Retry-After", headerRef("Retry-After-Optional"));
    const char* body = answer.status == 422 ? "ValidationError" : "Error";
    out.set(answer.name, Json::object({{"description", answer.description},
                                       {"headers", std::move(headers)},
                                       {"content", jsonContent(schema::ref(body))}}));
  }
  return out;
}

bool hasPathParams(const Route& route) {
  return std::any_of(route.paramNames.begin(), route.paramNames.end(),
                     [](const std::string& name) { return !name.empty(); });
}

// "GET /v1/crm/contacts/{id}/deals" -> "get_crm_contacts_by_id_deals".
std::string operationId(const Route& route) {
  std::string id = route.method;
  std::transform(id.begin(), id.end(), id.begin(), [](char c) { return char(c - 'A' + 'a'); });
  std::string segment;
  auto flush = [&] {
    if (segment.empty() || segment == "v1") {
      segment.clear();
      return;
    }
    if (segment.front() == '{') segment = "by_" + segment.substr(1, segment.size() - 2);
    for (char& c : segment) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
    }
    id += "_" + segment;
    segment.clear();
  };
  for (char c : route.pattern) {
    if (c == '/') {
      flush();
    } else {
      segment += c;
    }
  }
  flush();
  return id;
}

// The operation's tag: the module's choice, or its name.
std::string operationTag(const Route& route) {
  return route.doc && !route.doc->tag.empty() ? route.doc->tag : route.owner;
}

Json headerParameter(const char* name, const char* description, Json value) {
  return Json::object({{"name", name},
                       {"in", "header"},
                       {"description", description},
                       {"schema", std::move(value)}});
}

bool honoursIdempotencyKey(const Route& route) {
  return route.method == "POST" && route.options.access == rapport::Access::Authenticated;
}

// The headers the host honours on this route (docs/api-choices.md).
void addHostHeaders(Json& out, const Route& route, ConditionalRoutes::Kind kind) {
  if (honoursIdempotencyKey(route)) {
    out.push(headerParameter("Idempotency-Key",
                             "Makes a retry safe: a repeat with the same key and body replays "
                             "the first 2xx answer (Idempotent-Replayed: true); 1 to 255 "
                             "visible ASCII characters, kept 24 hours.",
                             schema::text(255)));
  }
  if (kind == ConditionalRoutes::Kind::Read) {
    out.push(headerParameter("If-None-Match",
                             "The record's ETag from an earlier read: 304 while it is current.",
                             schema::string()));
  }
  if (kind == ConditionalRoutes::Kind::Write) {
    out.push(headerParameter("If-Match",
                             "The record's ETag from an earlier read: 412, nothing written, "
                             "when the record changed since.",
                             schema::string()));
  }
}

Json parameters(const Route& route, ConditionalRoutes::Kind kind) {
  Json out = Json::array();
  addHostHeaders(out, route, kind);
  for (const auto& name : route.paramNames) {
    if (name.empty()) continue;
    out.push(Json::object(
        {{"name", name}, {"in", "path"}, {"required", true}, {"schema", schema::string()}}));
  }
  if (!route.doc || route.doc->query.isNull()) return out;
  const Json& query = route.doc->query;
  std::set<std::string> required;
  if (const Json* names = query.find("required"); names && names->isArray()) {
    for (const auto& name : names->asArray()) required.insert(name.asString());
  }
  if (const Json* properties = query.find("properties"); properties && properties->isObject()) {
    for (const auto& [name, value] : properties->asObject()) {
      Json parameter = Json::object({{"name", name}, {"in", "query"}});
      if (required.count(name)) parameter.set("required", true);
      if (const Json* description = value.find("description")) {
        parameter.set("description", *description);
      }
      parameter.set("schema", value);
      out.push(std::move(parameter));
    }
  }
  return out;
}

// A Public route whose handler reads the bearer token itself (api_doc.h
// RouteDocExtra): the document requires the token.
bool readsBearerToken(const Route& route) {
  return route.extra && route.extra->readsBearerToken;
}

bool needsToken(const Route& route) {
  return route.options.access == rapport::Access::Authenticated || readsBearerToken(route);
}

// The host parses a body sent to any route with these methods
// (RequestBuilder): 400 when it is not a JSON object, described or not.
bool parsesBody(const Route& route) {
  return route.method == "POST" || route.method == "PUT" || route.method == "PATCH" ||
         route.method == "DELETE";
}

// A body whose schema names required properties cannot be left out: an
// absent body reads as {} and fails them. One without any is optional (a
// PATCH that changes nothing, a body of alternatives).
bool bodyRequired(const Json& body) {
  const Json* required = body.find("required");
  return required && required->isArray() && required->size() > 0;
}

// Who may call the route, in the operation's description.
std::string accessText(const Route& route) {
  if (readsBearerToken(route)) {
    return "Access: the bearer token, which the route checks itself (401 without a valid one).";
  }
  if (route.options.access == rapport::Access::Public) return "Access: public, no token needed.";
  std::string keys = " API keys: refused.";
  if (route.keyScope == rapport::kAnyApiKey) {
    keys = " API keys: any.";
  } else if (!route.keyScope.empty()) {
    keys = " API keys: with the scope " + route.keyScope + ".";
  }
  if (route.options.roles.empty()) return "Access: a bearer token; any role." + keys;
  std::string roles;
  for (auto role : route.options.roles)
    roles += (roles.empty() ? "" : ", ") + std::string(rapport::roleName(role));
  return "Access: a bearer token. Roles: " + roles + "." + keys;
}

// The success answer: the envelope around the described data, or, for a
// route that writes its data alone, that data.
Json successAnswer(const Route& route, ConditionalRoutes::Kind kind) {
  const rapport::RouteDoc* doc = route.doc ? &*route.doc : nullptr;
  Json headers = commonHeaders();
  if (kind == ConditionalRoutes::Kind::Read) headers.set("ETag", headerRef("ETag"));
  if (honoursIdempotencyKey(route)) {
    headers.set("Idempotent-Replayed", headerRef("Idempotent-Replayed"));
  }
  if (route.body == RouteBody::DataOnly) {
    Json body = doc && !doc->data.isNull() ? doc->data : schema::anyObject();
    return Json::object({{"description", "The document itself (no envelope)."},
                         {"headers", std::move(headers)},
                         {"content", jsonContent(std::move(body))}});
  }
  schema::Properties properties = {{"message", schema::string()}};
  std::vector<std::string> required = {"message"};
  if (!doc) {
    properties.emplace_back("data", Json::object());
  } else if (!doc->data.isNull()) {
    properties.emplace_back("data", doc->data);
    required.emplace_back("data");
  }
  if (doc && doc->paged) {
    // A record list (record_query.h) answers either meta: the page's, or
    // the cursor's with limit or cursor.
    Json meta = schema::ref("PageMeta");
    if (route.extra && !route.extra->meta.isNull()) {
      meta = schema::anyOf({std::move(meta), route.extra->meta});
    }
    properties.emplace_back("meta", std::move(meta));
    required.emplace_back("meta");
  } else if (route.extra && !route.extra->meta.isNull()) {
    properties.emplace_back("meta", route.extra->meta);
    required.emplace_back("meta");
  }
  const int status = doc ? doc->status : 200;
  return Json::object(
      {{"description", status == 201 ? "Created." : "OK."},
       {"headers", std::move(headers)},
       {"content", jsonContent(schema::object(std::move(properties), std::move(required)))}});
}

Json errorAnswerFor(int status) {
  if (const ErrorAnswer* answer = errorAnswer(status)) {
    return Json::object({{"$ref", std::string("#/components/responses/") + answer->name}});
  }
  return Json::object({{"description", rapport::Error::genericMessage(status)},
                       {"headers", commonHeaders()},
                       {"content", jsonContent(schema::ref("Error"))}});
}

// Deprecated routes and the 410 of a sunset (VersionPolicy: a version or a
// deprecation rule of the route's path, whatever the date).
struct Lifecycle {
  bool deprecated = false;
  bool sunset = false;
};

Lifecycle lifecycleOf(const Route& route, const VersionPolicy* versions) {
  if (!versions) return {};
  const VersionVerdict ever =
      versions->evaluate(route.pattern, std::numeric_limits<std::int64_t>::max());
  return {!ever.headers.empty() || ever.gone, ever.gone};
}

std::string operationDescription(const Route& route, const Lifecycle& lifecycle) {
  std::string description = route.doc ? route.doc->description : "";
  auto add = [&](const std::string& text) {
    description += (description.empty() ? "" : "\n\n") + text;
  };
  if (lifecycle.deprecated) {
    add(lifecycle.sunset ? "Deprecated: answers 410 from its sunset date (the `Sunset` header)."
                         : "Deprecated (the `Deprecation` header).");
  }
  add(accessText(route));
  return description;
}

Json operation(const Route& route, const ConditionalRoutes* conditions,
               const VersionPolicy* versions) {
  const ConditionalRoutes::Kind kind =
      conditions ? conditions->kindOf(route) : ConditionalRoutes::Kind::None;
  const rapport::RouteDoc* doc = route.doc ? &*route.doc : nullptr;
  const Lifecycle lifecycle = lifecycleOf(route, versions);
  Json op = Json::object();
  op.set("operationId", operationId(route));
  op.set("summary",
         doc && !doc->summary.empty() ? doc->summary : route.method + " " + route.pattern);
  op.set("description", operationDescription(route, lifecycle));
  op.set("tags", Json(Json::Array{Json(operationTag(route))}));
  op.set("x-rapport-module", route.owner);
  if (lifecycle.deprecated) op.set("deprecated", true);
  if (!needsToken(route)) {
    op.set("security", Json::array());
  } else if (!route.keyScope.empty()) {
    // A user's token, or an API key holding the scope (decisions §15). The
    // scope goes in x-rapport-scope: OpenAPI lists scopes in a requirement
    // only for OAuth2 schemes, and linters refuse them on a bearer scheme.
    if (route.keyScope != rapport::kAnyApiKey) op.set("x-rapport-scope", route.keyScope);
    op.set("security", Json(Json::Array{Json::object({{"bearerAuth", Json::array()}}),
                                        Json::object({{"apiKey", Json::array()}})}));
  }
  Json params = parameters(route, kind);
  if (params.size() > 0) op.set("parameters", std::move(params));
  if (doc && !doc->body.isNull()) {
    Json body = Json::object({{"content", jsonContent(doc->body)}});
    if (bodyRequired(doc->body)) body.set("required", true);
    op.set("requestBody", std::move(body));
  }
  Json responses = Json::object();
  // A status of 0: the route answers only errors (GET /v1/errors/sample).
  if (!doc || doc->status != 0) {
    responses.set(std::to_string(doc ? doc->status : 200), successAnswer(route, kind));
  }
  if (!doc) {
    // Nobody said what else it answers: any status, in the envelope.
    Json other = successAnswer(route, kind);
    other.set("description", "Any other answer: this route is not described.");
    responses.set("default", std::move(other));
  }
  if (kind == ConditionalRoutes::Kind::Read) {
    Json headers = commonHeaders();
    headers.set("ETag", headerRef("ETag"));
    responses.set("304", Json::object({{"description", "Not modified: If-None-Match is current."},
                                       {"headers", std::move(headers)}}));
  }
  std::vector<int> errors = routeErrorStatuses(route);
  if (honoursIdempotencyKey(route)) errors.insert(errors.end(), {400, 409, 422});
  if (kind != ConditionalRoutes::Kind::None) errors.insert(errors.end(), {400, 412});
  if (lifecycle.sunset) errors.push_back(410);
  std::sort(errors.begin(), errors.end());
  errors.erase(std::unique(errors.begin(), errors.end()), errors.end());
  for (int status : errors) responses.set(std::to_string(status), errorAnswerFor(status));
  op.set("responses", std::move(responses));
  return op;
}

std::string lowerMethod(std::string method) {
  std::transform(method.begin(), method.end(), method.begin(),
                 [](char c) { return char(c - 'A' + 'a'); });
  return method;
}

// The global tags, each used by some operation, with who owns its routes.
Json globalTags(const Router& router) {
  std::map<std::string, std::set<std::string>> owners;
  for (const Route* route : router.routes()) owners[operationTag(*route)].insert(route->owner);
  Json tags = Json::array();
  for (const auto& [tag, modules] : owners) {
    std::string names;
    for (const auto& module : modules) {
      names += (names.empty() ? "" : " and ") +
               (module == "host" ? std::string("the host") : "the " + module + " module");
    }
    tags.push(Json::object({{"name", tag}, {"description", "Routes of " + names + "."}}));
  }
  return tags;
}

const char* const kInfoDescription =
    "Generated by this server from the routes its enabled modules registered. Every answer is "
    "the envelope {\"message\", \"data\", \"meta\"}; errors are {\"message\"} (and \"errors\" on "
    "422). Every answer carries `X-Request-Id` and the `X-RateLimit-*` headers.\n\n"
    "Besides the statuses each operation lists, the HTTP layer may answer any request, before "
    "it reaches a route, with 400 (a malformed request), 404 or 405 (no such route or method), "
    "408 (too slow), 411, 413, 414, 431, 505 or 503 (the server is full), in the same error "
    "envelope.";

}  // namespace

std::vector<int> routeErrorStatuses(const Route& route) {
  std::set<int> statuses = {429, 500, 503};
  const rapport::RouteDoc* doc = route.doc ? &*route.doc : nullptr;
  if (needsToken(route)) statuses.insert(401);
  // A role the caller lacks, or an API key without the scope (or refused).
  if (!route.options.roles.empty() || route.keyScope != rapport::kAnyApiKey) statuses.insert(403);
  if (hasPathParams(route)) statuses.insert(404);
  if (parsesBody(route)) statuses.insert(400);
  if (doc && !doc->body.isNull()) statuses.insert({400, 413, 422});
  if (doc && (!doc->query.isNull() || doc->paged)) statuses.insert(422);
  if (doc) statuses.insert(doc->errors.begin(), doc->errors.end());
  return {statuses.begin(), statuses.end()};
}

rapport::Json openApiDocument(const Router& router, const ApiSchemas& schemas,
                              const ConditionalRoutes* conditions, const VersionPolicy* versions) {
  Json paths = Json::object();
  for (const Route* route : router.routes()) {
    if (!paths.contains(route->pattern)) paths.set(route->pattern, Json::object());
    paths.find(route->pattern)
        ->set(lowerMethod(route->method), operation(*route, conditions, versions));
  }
  Json components = Json::object(
      {{"schemas", schemas.all()},
       {"responses", responseComponents()},
       {"headers", headerComponents()},
       {"securitySchemes",
        Json::object(
            {{"bearerAuth", Json::object({{"type", "http"},
                                          {"scheme", "bearer"},
                                          {"description", "The token of POST /v1/auth/login."}})},
             {"apiKey",
              Json::object(
                  {{"type", "http"},
                   {"scheme", "bearer"},
                   {"bearerFormat", "rk_..."},
                   {"description",
                    "An API key of POST /v1/api-keys (docs/api-keys.md). An operation "
                    "that takes keys lists this scheme and names the scope a key "
                    "needs in x-rapport-scope; one without it refuses keys (403)."}})}})}});
  return Json::object(
      {{"openapi", "3.1.0"},
       {"info", Json::object({{"title", "Rapport CRM API"},
                              {"version", RAPPORT_SERVER_VERSION},
                              {"description", kInfoDescription}})},
       // Relative: the server that serves this document (its paths carry the
       // version prefix, the health probes none).
       {"servers", Json(Json::Array{Json::object(
                       {{"url", "/"}, {"description", "The server that serves this document."}})})},
       {"security", Json(Json::Array{Json::object({{"bearerAuth", Json::array()}})})},
       {"tags", globalTags(router)},
       {"paths", std::move(paths)},
       {"components", std::move(components)}});
}

const rapport::Json* operationOf(const rapport::Json& document, const Route& route) {
  const Json* paths = document.find("paths");
  const Json* item = paths ? paths->find(route.pattern) : nullptr;
  return item ? item->find(lowerMethod(route.method)) : nullptr;
}

void ApiDocument::build() const {
  std::call_once(built_, [this] {
    marked_ = openApiDocument(router_, schemas_, conditions_, versions_);
    document_ = marked_;
    if (removeCustomFieldMarkers(document_) == 0) marked_ = Json();
  });
}

const rapport::Json& ApiDocument::get() const {
  build();
  return document_;
}

rapport::Json ApiDocument::forCompany(rapport::Queryable& db, const std::string& companyId) const {
  build();
  if (marked_.isNull()) return document_;
  return companyDocument(marked_, db, companyId);
}

}  // namespace rapport::host
