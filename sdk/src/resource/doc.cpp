#include "doc.h"

#include <algorithm>

#include "internal.h"
#include "rapport/api_doc.h"
#include "rapport/custom_fields.h"

namespace rapport::detail {
namespace {

using namespace resource_detail;

Json relatedSchema(const ResourceField& field) {
  std::vector<std::string> types;
  for (const ResourceReference& target : field.references) types.push_back(target.recordType);
  return schema::object({{"type", schema::enumOf(types)}, {"id", schema::string()}},
                        {"type", "id"});
}

// What a field's value is, as stored and answered (never null).
Json valueSchema(const ResourceField& field) {
  const std::string& about = field.description;
  switch (field.kind) {
    case FieldKind::Text:
      return schema::string(about).set("maxLength", static_cast<std::int64_t>(field.maxLength));
    case FieldKind::Email:
      return schema::email(about);
    case FieldKind::Url:
      return schema::url(about);
    case FieldKind::Integer: {
      Json out = schema::integer(about);
      if (field.min) out.set("minimum", *field.min);
      if (field.max) out.set("maximum", *field.max);
      return out;
    }
    case FieldKind::Money: {
      Json out = schema::money(about);
      if (field.max) out.set("maximum", *field.max);
      return out;
    }
    case FieldKind::Boolean:
      return schema::boolean(about);
    case FieldKind::Date:
      return schema::date(about);
    case FieldKind::Currency:
      return schema::string(about.empty() ? "ISO 4217 code." : about).set("pattern", "^[A-Z]{3}$");
    case FieldKind::DateTime:
      return schema::timestamp(about);
    case FieldKind::Enum:
      return schema::enumOf(field.options, about);
    case FieldKind::Tags:
      return schema::arrayOf(schema::string(), about);
    case FieldKind::Reference:
      return schema::string(about);
    case FieldKind::Related:
      return relatedSchema(field);
  }
  return schema::string();
}

bool mayBeNull(const ResourceField& field) {
  return !isNotNull(field);
}

bool takesCustomFields(const ResourceSpec& spec);

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
  if (takesCustomFields(spec)) {
    // The host's per-company document replaces the marked schema with the
    // company's fields (custom_fields.h).
    properties.emplace_back(
        "custom_fields",
        schema::anyObject("The company's custom fields: every defined key, null when unset.")
            .set("additionalProperties", true)
            .set(kCustomFieldsMarker, spec.recordType));
    required.push_back("custom_fields");
  }
  return schema::object(std::move(properties), std::move(required));
}

bool takesCustomFields(const ResourceSpec& spec) {
  return !spec.customFields.migration.empty();
}

// A body may send null for any field (the default, or a cleared value); an
// optional text field also takes blank text, which clears it (values.cpp
// reads it with rapport::optionalText).
Json bodyValue(const ResourceField& field) {
  if (field.kind == FieldKind::Text && !field.required) {
    return schema::optionalText(static_cast<std::int64_t>(field.maxLength), field.description);
  }
  if (field.kind == FieldKind::Tags) {
    return schema::nullable(schema::arrayOf(schema::text(50), "At most 50 tags."));
  }
  return schema::nullable(valueSchema(field));
}

Json bodySchema(const ResourceSpec& spec, const std::set<std::string>& unavailable, bool creating) {
  schema::Properties properties;
  std::vector<std::string> required;
  for (const auto& field : spec.fields) {
    if (field.access == FieldAccess::ReadOnly) continue;
    if (!creating && field.access == FieldAccess::CreateOnly) continue;
    const bool off =
        field.kind == FieldKind::Reference && !isAvailable(field.references.front(), unavailable);
    if (off) continue;
    properties.emplace_back(field.name, bodyValue(field));
    if (creating && field.required) required.push_back(field.name);
  }
  if (takesCustomFields(spec)) {
    properties.emplace_back("custom_fields",
                            schema::nullable(schema::anyObject(
                                creating ? "Custom values by key; an unsent key takes its default."
                                         : "Custom values by key; only the keys sent change.")));
  }
  return schema::object(std::move(properties), std::move(required));
}

// The list's own filters (search, tag, ?<field>=); the record query engine
// adds the query language's parameters.
Json listQuery(const ResourceSpec& spec, const std::set<std::string>& unavailable) {
  const std::string records = pluralTitleOf(spec);
  schema::Properties filters;
  if (anySearchable(spec)) {
    filters.emplace_back(
        "search", schema::string("Words to find in the " + records + " (at most 255 characters)."));
  }
  if (tagsField(spec) != nullptr) {
    filters.emplace_back("tag", schema::string("Keeps " + records + " with this tag."));
  }
  for (const auto& field : spec.fields) {
    if (!field.filterable) continue;
    if (field.kind == FieldKind::Reference && !isAvailable(field.references.front(), unavailable)) {
      continue;
    }
    const std::string how =
        field.anyCase ? " equals the value, in any case." : " equals the value.";
    filters.emplace_back(field.name,
                         schema::string("Keeps " + records + " whose " + field.name + how));
  }
  for (const auto& parameter : spec.rules.listParameters) filters.push_back(parameter);
  return schema::object(std::move(filters));
}

std::string emits(const std::string& event) {
  return "Emits `" + event + "`";
}

// The record routes' write errors: 409 on the unique field, 404 for a
// reference to nothing.
std::vector<int> writeErrors(const ResourceSpec& spec) {
  std::vector<int> errors;
  const bool references = std::any_of(spec.fields.begin(), spec.fields.end(), [](const auto& f) {
    return f.kind == FieldKind::Reference || f.kind == FieldKind::Related;
  });
  if (references) errors.push_back(404);
  if (uniqueField(spec) != nullptr) errors.push_back(409);
  return errors;
}

std::string uniqueNote(const ResourceSpec& spec) {
  const ResourceField* unique = uniqueField(spec);
  return unique == nullptr ? "." : "; 409 when the " + unique->name + " is taken.";
}

void describeSubLists(const ResourceSpec& spec, const RecordQuery& query,
                      const std::set<std::string>& unavailable, const Json& record,
                      Registry& registry) {
  for (const ResourceField& field : spec.fields) {
    for (const ResourceReference& target : field.references) {
      if (target.subList.empty() || !isAvailable(target, unavailable)) continue;
      query.describeList(
          registry, target.subList,
          {.summary = "List the " + pluralTitleOf(spec) + " of a " + target.recordType,
           .query = listQuery(spec, unavailable),
           .data = schema::arrayOf(record),
           .errors = {404}});
    }
  }
}

void describeActions(const ResourceSpec& spec, const Json& record, Registry& registry) {
  for (const ResourceAction& action : spec.actions) {
    registry.describe(
        action.method, spec.path + "/{id}" + action.path,
        {.summary = action.summary,
         .description = action.description.empty() ? emits(action.event) + "." : action.description,
         .body = action.body,
         .data = record,
         .errors = action.errors});
  }
}

// The definitions' routes (custom_fields.h) and their schema, named after
// the record's ("ContactCustomField").
void describeCustomFields(const ResourceSpec& spec, Registry& registry) {
  const std::string name = schemaNameOf(spec) + "CustomField";
  std::vector<std::string> types;
  for (int t = 0; t <= static_cast<int>(CustomFieldType::Reference); ++t) {
    types.push_back(customFieldTypeName(static_cast<CustomFieldType>(t)));
  }
  const Json options = schema::arrayOf(
      schema::object({{"value", schema::text(100)}, {"label", schema::text(100)}}, {"value"}),
      "Select types: at most 200 options with unique values.");
  const Json anyValue = Json::object({{"description", "A value of the field's type, or null."}});
  registry.schema(
      name, schema::object({{"key", schema::string("^[a-z][a-z0-9_]{0,62}$, immutable.")},
                            {"label", schema::text(100)},
                            {"type", schema::enumOf(types)},
                            {"description", schema::nullable(schema::string())},
                            {"required", schema::boolean()},
                            {"unique", schema::boolean()},
                            {"options", options},
                            {"default", anyValue},
                            {"target", schema::nullable(schema::string("Reference fields."))},
                            {"record_type", schema::string()},
                            {"created_at", schema::timestamp()},
                            {"updated_at", schema::timestamp()}},
                           {"key", "label", "type", "description", "required", "unique", "options",
                            "default", "target", "record_type", "created_at", "updated_at"}));
  const Json definition = schema::ref(name);
  const Json createBody =
      schema::object({{"key", schema::text(63, "^[a-z][a-z0-9_]{0,62}$, not a built-in field.")},
                      {"label", schema::text(100)},
                      {"type", schema::enumOf(types)},
                      {"description", schema::nullable(schema::string("At most 500 characters."))},
                      {"required", schema::boolean()},
                      {"unique", schema::boolean("text, email, number, url and phone only.")},
                      {"options", options},
                      {"default", anyValue},
                      {"target", schema::string("Reference fields: the record type.")}},
                     {"key", "label", "type"});
  const Json patchBody = schema::object({{"label", schema::text(100)},
                                         {"description", schema::nullable(schema::string())},
                                         {"required", schema::boolean()},
                                         {"unique", schema::boolean()},
                                         {"options", options},
                                         {"default", anyValue}});
  const std::string fields = spec.path + "/fields";
  const std::string one = fields + "/{key}";
  const std::string what = titleOf(spec);
  registry.describe("GET", fields,
                    {.summary = "List the custom fields of " + pluralTitleOf(spec),
                     .data = schema::arrayOf(definition)});
  registry.describe("POST", fields,
                    {.summary = "Define a custom field of " + pluralTitleOf(spec),
                     .description = "Owner or admin. Emits `crm.field.created`; 409 when the key "
                                    "is taken; 422 past 100 fields.",
                     .body = createBody,
                     .status = 201,
                     .data = definition,
                     .errors = {409}});
  registry.describe("GET", one,
                    {.summary = "Get a custom field of " + pluralTitleOf(spec),
                     .data = definition,
                     .errors = {404}});
  registry.describe("PATCH", one,
                    {.summary = "Update a custom field of " + pluralTitleOf(spec),
                     .description = "Owner or admin. Emits `crm.field.updated`; 409 when a removed "
                                    "option is used or unique values collide.",
                     .body = patchBody,
                     .data = definition,
                     .errors = {404, 409}});
  registry.describe("DELETE", one,
                    {.summary = "Delete a custom field of " + pluralTitleOf(spec),
                     .description = "Owner or admin. The field's values leave every " + what +
                                    " at once. Emits `crm.field.deleted`.",
                     .data = schema::object({{"key", schema::string()}}, {"key"}),
                     .errors = {404}});
}

}  // namespace

void describeResource(const ResourceSpec& spec, const RecordQuery& query,
                      const std::set<std::string>& unavailable, Registry& registry) {
  const std::string one = spec.path + "/{id}";
  const std::string title = titleOf(spec);
  const std::string name = schemaNameOf(spec);
  const std::string aTitle = withArticle(title);
  registry.schema(name, recordSchema(spec));
  const Json record = schema::ref(name);
  query.describeList(registry, spec.path,
                     {.summary = "List " + pluralTitleOf(spec),
                      .query = listQuery(spec, unavailable),
                      .data = schema::arrayOf(record)});
  query.describeSearch(registry, spec.path, "Search " + pluralTitleOf(spec), record);
  const std::vector<int> errors = writeErrors(spec);
  std::string createNote = emits(spec.eventPrefix + ".created") + uniqueNote(spec);
  if (!spec.createDescription.empty()) createNote += " " + spec.createDescription;
  registry.describe("POST", spec.path,
                    {.summary = "Create " + aTitle,
                     .description = createNote,
                     .body = bodySchema(spec, unavailable, true),
                     .status = 201,
                     .data = record,
                     .errors = errors});
  registry.describe("GET", one, {.summary = "Get " + aTitle, .data = record});
  registry.describe("PATCH", one,
                    {.summary = "Update " + aTitle,
                     .description = emits(spec.eventPrefix + ".updated") + " when a field changed" +
                                    uniqueNote(spec),
                     .body = bodySchema(spec, unavailable, false),
                     .data = record,
                     .errors = errors});
  std::string deleteNote = emits(spec.eventPrefix + ".deleted") + ".";
  if (!spec.deleteDescription.empty()) deleteNote += " " + spec.deleteDescription;
  registry.describe("DELETE", one,
                    {.summary = "Delete " + aTitle,
                     .description = deleteNote,
                     .data = schema::deleted(spec.idPrefix)});
  describeActions(spec, record, registry);
  describeSubLists(spec, query, unavailable, record, registry);
  if (takesCustomFields(spec)) describeCustomFields(spec, registry);
}

}  // namespace rapport::detail
