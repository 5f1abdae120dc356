#include "resource_doc.h"

#include <algorithm>
#include <cctype>

#include "rapport/api_doc.h"

namespace rapport::detail {
namespace {

// What a field's value is, as stored and answered (never null).
Json valueSchema(const ResourceField& field) {
  switch (field.kind) {
    case FieldKind::Text:
      return schema::string().set("maxLength", static_cast<std::int64_t>(field.maxLength));
    case FieldKind::Email:
      return schema::email();
    case FieldKind::Url:
      return schema::url();
    case FieldKind::Integer: {
      Json out = schema::integer();
      if (field.min) out.set("minimum", *field.min);
      if (field.max) out.set("maximum", *field.max);
      return out;
    }
    case FieldKind::Money: {
      Json out = schema::money();
      if (field.max) out.set("maximum", *field.max);
      return out;
    }
    case FieldKind::Boolean:
      return schema::boolean();
    case FieldKind::Date:
      return schema::date();
    case FieldKind::Currency:
      return schema::string("ISO 4217 code.").set("pattern", "^[A-Z]{3}$");
  }
  return schema::string();
}

// A field that is neither required nor defaulted may be null.
bool mayBeNull(const ResourceField& field) {
  return !field.required && !field.defaultValue;
}

Json recordSchema(const ResourceSpec& spec) {
  schema::Properties properties = {{"id", schema::id(spec.idPrefix)}};
  std::vector<std::string> required = {"id"};
  for (const auto& field : spec.fields) {
    Json value = valueSchema(field);
    properties.emplace_back(field.name, mayBeNull(field) ? schema::nullable(value) : value);
    required.push_back(field.name);
  }
  properties.emplace_back("created_at", schema::timestamp());
  properties.emplace_back("updated_at", schema::timestamp());
  required.insert(required.end(), {"created_at", "updated_at"});
  return schema::object(std::move(properties), std::move(required));
}

// A body may send null for any field (the default, or a cleared value); an
// optional text field also takes blank text, which clears it (resource.cpp
// reads it with rapport::optionalText).
Json bodyValue(const ResourceField& field) {
  if (field.kind == FieldKind::Text && !field.required) {
    return schema::optionalText(static_cast<std::int64_t>(field.maxLength));
  }
  return schema::nullable(valueSchema(field));
}

Json bodySchema(const ResourceSpec& spec, bool creating) {
  schema::Properties properties;
  std::vector<std::string> required;
  for (const auto& field : spec.fields) {
    properties.emplace_back(field.name, bodyValue(field));
    if (creating && field.required) required.push_back(field.name);
  }
  return schema::object(std::move(properties), std::move(required));
}

// The list's own filters (search, ?<field>=); the record query engine adds
// the query language's parameters.
Json listQuery(const ResourceSpec& spec) {
  schema::Properties filters;
  const bool searchable = std::any_of(spec.fields.begin(), spec.fields.end(),
                                      [](const ResourceField& f) { return f.searchable; });
  if (searchable) {
    filters.emplace_back("search", schema::string("A substring of the searchable fields."));
  }
  for (const auto& field : spec.fields) {
    if (field.filterable) {
      filters.emplace_back(
          field.name, schema::string("Keeps records whose " + field.name + " equals the value."));
    }
  }
  return schema::object(std::move(filters));
}

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

void describeResource(const ResourceSpec& spec, const RecordQuery& query, Registry& registry) {
  const std::string& noun = spec.noun;
  const std::string one = spec.path + "/{id}";
  const bool unique = std::any_of(spec.fields.begin(), spec.fields.end(),
                                  [](const ResourceField& f) { return f.unique; });
  const std::vector<int> writeErrors = unique ? std::vector<int>{409} : std::vector<int>{};
  registry.schema(noun, recordSchema(spec));
  query.describeList(registry, spec.path,
                     {.summary = "List " + lowered(noun) + " records",
                      .query = listQuery(spec),
                      .data = schema::arrayOf(schema::ref(noun))});
  query.describeSearch(registry, spec.path, "Search " + lowered(noun) + " records",
                       schema::ref(noun));
  registry.describe("POST", spec.path,
                    {.summary = "Create a " + lowered(noun) + " record",
                     .body = bodySchema(spec, true),
                     .status = 201,
                     .data = schema::ref(noun),
                     .errors = writeErrors});
  registry.describe("GET", one,
                    {.summary = "Get a " + lowered(noun) + " record", .data = schema::ref(noun)});
  registry.describe("PATCH", one,
                    {.summary = "Update a " + lowered(noun) + " record",
                     .body = bodySchema(spec, false),
                     .data = schema::ref(noun),
                     .errors = writeErrors});
  registry.describe(
      "DELETE", one,
      {.summary = "Delete a " + lowered(noun) + " record", .data = schema::deleted(spec.idPrefix)});
}

}  // namespace rapport::detail
