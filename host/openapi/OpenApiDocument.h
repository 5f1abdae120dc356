// The API document (OpenAPI 3.1), generated from what is registered: every
// route of the Router (the host's and every enabled module's, third-party
// ones included), with the descriptions modules gave (rapport/api_doc.h)
// and what the host knows itself: path parameters, bearer security, the
// envelope, the rate-limit headers and the errors of the request path
// (docs/openapi.md).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "http/Router.h"
#include "openapi/ApiSchemas.h"
#include "rapport/db.h"
#include "rapport/json.h"

namespace rapport::host {

class ConditionalRoutes;
class VersionPolicy;

// The statuses a route can answer besides its success, in order: those the
// host's request path derives from the route, then the route's own.
std::vector<int> routeErrorStatuses(const Route& route);

// The whole document. Deterministic: the same routes give the same bytes.
// `conditions` (may be null) adds the records' ETag, If-Match and
// If-None-Match; every authenticated POST gets the Idempotency-Key header.
// `versions` (may be null) marks the routes of a deprecated version or
// path deprecated, and adds 410 to those with a sunset.
rapport::Json openApiDocument(const Router& router, const ApiSchemas& schemas,
                              const ConditionalRoutes* conditions = nullptr,
                              const VersionPolicy* versions = nullptr);

// The operation of `route` in `document`, or nullptr.
const rapport::Json* operationOf(const rapport::Json& document, const Route& route);

// The document built once, at the first call of get() or forCompany(), from
// what is registered by then: GET /v1/openapi.json serves it and
// api.check_responses checks answers against it. Thread-safe; every argument
// must outlive it.
class ApiDocument {
 public:
  ApiDocument(const Router& router, const ApiSchemas& schemas, const ConditionalRoutes* conditions,
              const VersionPolicy* versions)
      : router_(router), schemas_(schemas), conditions_(conditions), versions_(versions) {}

  // The generic document: custom_fields are free objects
  // (CustomFieldsDocument.h).
  const rapport::Json& get() const;
  // The document of `companyId`, its custom fields described from `db` now:
  // nothing is cached per company (the document is asked for rarely, and a
  // definition may change at any time).
  rapport::Json forCompany(rapport::Queryable& db, const std::string& companyId) const;
  const ApiSchemas& schemas() const { return schemas_; }

 private:
  void build() const;

  const Router& router_;
  const ApiSchemas& schemas_;
  const ConditionalRoutes* conditions_;
  const VersionPolicy* versions_;
  mutable std::once_flag built_;
  mutable rapport::Json document_;
  // The document with the engine's custom fields markers; null when it has
  // none (then every company's document is the generic one).
  mutable rapport::Json marked_;
};

}  // namespace rapport::host
