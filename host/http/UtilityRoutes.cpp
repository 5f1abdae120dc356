#include "http/UtilityRoutes.h"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>

#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/scopes.h"

namespace rapport::host {
namespace {

constexpr std::array<int, 8> kSampleStatuses = {400, 401, 403, 404, 409, 422, 429, 500};
// Retry-After of the sampled 429: the default rate-limit window.
constexpr long kSampleRetryAfter = 60;

int sampleStatus(const rapport::Request& request) {
  const auto text = request.queryParam("status");
  if (!text || text->empty())
    throw rapport::Error::invalidField("status", "The status field is required.");
  const bool digits = text->size() == 3 && std::all_of(text->begin(), text->end(),
                                                       [](char c) { return c >= '0' && c <= '9'; });
  const int status = digits ? std::stoi(*text) : 0;
  if (std::find(kSampleStatuses.begin(), kSampleStatuses.end(), status) == kSampleStatuses.end()) {
    throw rapport::Error::invalidField("status", "The selected status is invalid.");
  }
  return status;
}

rapport::Response errorSample(const rapport::Request& request) {
  const int status = sampleStatus(request);
  const std::string message = rapport::Error::genericMessage(status);
  if (status == 422) {
    throw rapport::Error::validation({{"email", {"The email must be a valid email address."}}},
                                     message);
  }
  if (status == 429) throw rapport::Error::tooManyRequests(kSampleRetryAfter, message);
  throw rapport::Error(status, message);
}

namespace schema = rapport::schema;

// GET /v1/versions: VersionPolicy::versionsJson.
rapport::Json versionSchema() {
  return schema::object(
      {{"version", schema::string("\"v1\"")},
       {"status", schema::string("active, deprecated or sunset")},
       {"released_at", schema::string()},
       {"deprecated_at", schema::nullable(schema::string())},
       {"sunset_at", schema::nullable(schema::string())},
       {"docs_url", schema::string()}},
      {"version", "status", "released_at", "deprecated_at", "sunset_at", "docs_url"});
}

void describeUtilityRoutes(Router& router) {
  router.describe(
      "GET", "/v1/versions",
      {.summary = "List the API versions", .tag = "meta", .data = schema::arrayOf(versionSchema())},
      "host");
  router.describe(
      "GET", "/v1/errors/sample",
      {.summary = "Answer the error envelope of a status",
       .description = "For client authors: always answers the error of `status`, never a "
                      "success.",
       .tag = "meta",
       .query = schema::object(
           {{"status", schema::enumOf({"400", "401", "403", "404", "409", "422", "429", "500"},
                                      "The status to answer.")}},
           {"status"}),
       .status = 0,  // no success answer
       .errors = {400, 403, 404, 409, 422, 429, 500}},
      "host");
  router.describe("GET", "/healthz",
                  {.summary = "Tell whether the process answers",
                   .tag = "meta",
                   .data = schema::object({{"status", schema::enumOf({"ok"})}}, {"status"})},
                  "host");
  router.describe("GET", "/readyz",
                  {.summary = "Tell whether the server is ready (its database answers)",
                   .tag = "meta",
                   .data = schema::object({{"status", schema::enumOf({"ready"})}}, {"status"}),
                   .errors = {503}},
                  "host");
}

// Anyone's, API keys' too: a key is refused every route that declares no
// scope, public ones included (decisions §15; Pipeline.cpp authorize).
rapport::RouteOptions publicRoute() {
  rapport::RouteOptions options;
  options.access = rapport::Access::Public;
  options.scope = std::string(rapport::kAnyApiKey);
  return options;
}

}  // namespace

void registerUtilityRoutes(Router& router, const VersionPolicy& versions,
                           std::function<bool()> ready, CachedReadiness::Clock clock) {
  router.add(
      "GET", "/v1/versions",
      [&versions](const rapport::Request&) {
        return rapport::Response::ok(versions.versionsJson());
      },
      publicRoute(), "host");
  router.add("GET", "/v1/errors/sample", errorSample,
             rapport::RouteOptions{.scope = std::string(rapport::kAnyApiKey)}, "host");
  router.add(
      "GET", "/healthz",
      [](const rapport::Request&) {
        return rapport::Response::ok(rapport::Json::object({{"status", "ok"}}));
      },
      publicRoute(), "host");
  // Shared: the router copies its handlers, and every copy must see one cache.
  auto readiness = std::make_shared<CachedReadiness>(std::move(ready), std::move(clock));
  router.add(
      "GET", "/readyz",
      [readiness](const rapport::Request&) {
        if (!readiness->ready()) throw rapport::Error(503, rapport::Error::genericMessage(503));
        return rapport::Response::ok(rapport::Json::object({{"status", "ready"}}));
      },
      publicRoute(), "host");
  describeUtilityRoutes(router);
}

}  // namespace rapport::host
