// Checks a JSON value against a schema of the API document: the JSON Schema
// 2020-12 subset rapport/api_doc.h builds, so that a description that has
// drifted from the code fails the tests (api.check_responses,
// docs/openapi.md).
//
// Understood: $ref (to components/schemas), anyOf, type (a name or a list),
// enum, properties, required, additionalProperties (a schema or false),
// items, minimum, maximum, minLength, maxLength (in characters), pattern
// (ECMAScript), and format date-time, date, email and uri. Any other keyword
// is ignored: the check never refuses what the document allows, it may
// accept a little more.
#pragma once

#include <string>

#include "openapi/ApiSchemas.h"
#include "rapport/json.h"

namespace rapport::host {

// Empty when `value` matches `schema`; otherwise the first mismatch, as
// "<where>: <why>" with `where` a JSON pointer-like path from `at`
// ("data.tags.2: expected string, got integer").
std::string schemaMismatch(const rapport::Json& value, const rapport::Json& schema,
                           const ApiSchemas& schemas, const std::string& at);

}  // namespace rapport::host
