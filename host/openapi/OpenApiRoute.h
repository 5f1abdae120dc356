// GET /v1/openapi.json (public): the API document of this server, as
// OpenApiDocument.h builds it, written as it is (no envelope) so that tools
// (code generators, Swagger UI, validators) read it directly.
//
// With a valid bearer token (the Pipeline resolves one on public routes
// too) the document is the token company's, its custom fields described
// (decisions §14, CustomFieldsDocument.h); without one, or with one that is
// unknown, expired or revoked, the generic document. Either answer is
// `Cache-Control: private` and `Vary: Authorization`: no cache may hand one
// company's document to another caller.
#pragma once

#include "http/Router.h"
#include "openapi/OpenApiDocument.h"
#include "rapport/db.h"

namespace rapport::host {

// Register it after every other route: the document is built once, at the
// first request, from the routes registered by then. `document` and `db`
// (where the companies' custom field definitions are read) must outlive the
// route.
void registerOpenApiRoute(Router& router, const ApiDocument& document, rapport::Queryable& db);

}  // namespace rapport::host
