// Custom fields in the API document (decisions §14, rapport/custom_fields.h).
// The record engine marks each record schema's `custom_fields` property with
// {"x-rapport-custom-fields": "<record type>"} beside the free object it
// describes without a company. The host turns the marked document into:
//   - the generic one (no token): the marker removed, so custom_fields is
//     the free object and no member of ours leaks into the document;
//   - a company's (GET /v1/openapi.json with its token): each marked
//     property replaced by the schema of that company's definitions of the
//     record type (rapport::customFieldsSchema: a property per key, its type,
//     an enum for select types, nullable).
// Markers are found anywhere in the document (components.schemas, and any
// inline schema of a route: a batch's items, a body).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "rapport/db.h"
#include "rapport/json.h"

namespace rapport::host {

// The schema of a record type's custom_fields ("contact" -> {...}).
using CustomFieldsSchemaOf = std::function<rapport::Json(const std::string& recordType)>;

// Removes the marker from every object of `document`; returns how many it
// removed (none: the document has no custom fields to describe).
std::size_t removeCustomFieldMarkers(rapport::Json& document);

// Replaces every object of `document` that carries the marker with
// schemaOf(its record type), asking schemaOf once per record type. A marker
// that names no record type (not a string) is only removed.
void replaceCustomFieldMarkers(rapport::Json& document, const CustomFieldsSchemaOf& schemaOf);

// `marked` described for `companyId`: each record type's custom_fields from
// the company's definitions, read now (rapport::readCustomFields: no cache,
// a query per record type).
rapport::Json companyDocument(const rapport::Json& marked, rapport::Queryable& db,
                              const std::string& companyId);

}  // namespace rapport::host
