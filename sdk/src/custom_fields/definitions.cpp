// Custom-field definitions: their types, their JSON, their rules (POST and
// PATCH bodies) and their rows in custom_field_definitions.
#include <algorithm>
#include <regex>

#include "internal.h"
#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport {
namespace {

const std::vector<std::pair<CustomFieldType, const char*>>& typeNames() {
  static const std::vector<std::pair<CustomFieldType, const char*>> names = {
      {CustomFieldType::Text, "text"},          {CustomFieldType::LongText, "long_text"},
      {CustomFieldType::Number, "number"},      {CustomFieldType::Decimal, "decimal"},
      {CustomFieldType::Money, "money"},        {CustomFieldType::Boolean, "boolean"},
      {CustomFieldType::Date, "date"},          {CustomFieldType::DateTime, "datetime"},
      {CustomFieldType::Select, "select"},      {CustomFieldType::MultiSelect, "multi_select"},
      {CustomFieldType::Email, "email"},        {CustomFieldType::Url, "url"},
      {CustomFieldType::Phone, "phone"},        {CustomFieldType::User, "user"},
      {CustomFieldType::Reference, "reference"}};
  return names;
}

bool isSelect(CustomFieldType type) {
  return type == CustomFieldType::Select || type == CustomFieldType::MultiSelect;
}

Json optionsJson(const std::vector<CustomFieldOption>& options) {
  Json::Array out;
  for (const CustomFieldOption& o : options) {
    out.push_back(Json::object({{"value", o.value}, {"label", o.label}}));
  }
  return Json(std::move(out));
}

// One value's schema in the API document.
Json valueSchema(const CustomFieldDefinition& d) {
  std::string about = d.label;
  if (!d.description.empty()) about += ": " + d.description;
  if (d.required) about += " (required)";
  std::vector<std::string> values;
  for (const CustomFieldOption& o : d.options) values.push_back(o.value);
  switch (d.type) {
    case CustomFieldType::Number:
      return schema::nullable(schema::integer(about));
    case CustomFieldType::Money:
      return schema::nullable(schema::money(about));
    case CustomFieldType::Decimal:
      return schema::nullable(Json::object({{"type", "number"}, {"description", about}}));
    case CustomFieldType::Boolean:
      return schema::nullable(schema::boolean(about));
    case CustomFieldType::Date:
      return schema::nullable(schema::date(about));
    case CustomFieldType::DateTime:
      return schema::nullable(schema::timestamp(about));
    case CustomFieldType::Email:
      return schema::nullable(schema::email(about));
    case CustomFieldType::Url:
      return schema::nullable(schema::url(about));
    case CustomFieldType::Select:
      return schema::nullable(schema::enumOf(values, about));
    case CustomFieldType::MultiSelect:
      return schema::nullable(schema::arrayOf(schema::enumOf(values), about));
    default:
      return schema::nullable(schema::string(about));
  }
}

}  // namespace

std::string customFieldTypeName(CustomFieldType type) {
  for (const auto& [t, name] : typeNames()) {
    if (t == type) return name;
  }
  return "text";
}

std::optional<CustomFieldType> customFieldTypeOf(const std::string& name) {
  for (const auto& [t, n] : typeNames()) {
    if (name == n) return t;
  }
  return std::nullopt;
}

Json customFieldJson(const CustomFieldDefinition& d) {
  return Json::object({{"key", d.key},
                       {"label", d.label},
                       {"type", customFieldTypeName(d.type)},
                       {"description", d.description.empty() ? Json() : Json(d.description)},
                       {"required", d.required},
                       {"unique", d.unique},
                       {"options", optionsJson(d.options)},
                       {"default", d.defaultValue},
                       {"target", d.target.empty() ? Json() : Json(d.target)},
                       {"record_type", d.recordType},
                       {"created_at", isoTimestamp(d.createdAt)},
                       {"updated_at", isoTimestamp(d.updatedAt)}});
}

Json customFieldsSchema(const CustomFieldSet& fields) {
  if (fields.empty()) {
    return schema::anyObject("The company's custom fields (none defined).")
        .set("additionalProperties", true);
  }
  schema::Properties properties;
  std::vector<std::string> required;
  for (const CustomFieldDefinition& d : fields) {
    properties.emplace_back(d.key, valueSchema(d));
    required.push_back(d.key);
  }
  return schema::object(std::move(properties), std::move(required),
                        "The company's custom fields: every key, null when unset.");
}

CustomFieldSet readCustomFields(Queryable& db, const std::string& companyId,
                                const std::string& recordType) {
  return custom_fields::readDefinitions(db, companyId, recordType);
}

namespace custom_fields {

Column columnOf(CustomFieldType type) {
  switch (type) {
    case CustomFieldType::Number:
    case CustomFieldType::Decimal:
    case CustomFieldType::Money:
    case CustomFieldType::Boolean:
    case CustomFieldType::DateTime:
      return Column::Number;
    case CustomFieldType::LongText:
      return Column::Long;
    default:
      return Column::Text;
  }
}

const char* columnName(Column column) {
  switch (column) {
    case Column::Number:
      return "v_num";
    case Column::Long:
      return "v_long";
    default:
      return "v_text";
  }
}

bool isTextType(CustomFieldType type) {
  return type == CustomFieldType::Text || type == CustomFieldType::LongText ||
         type == CustomFieldType::Email || type == CustomFieldType::Url ||
         type == CustomFieldType::Phone;
}

bool mayBeUnique(CustomFieldType type) {
  return type == CustomFieldType::Text || type == CustomFieldType::Email ||
         type == CustomFieldType::Number || type == CustomFieldType::Url ||
         type == CustomFieldType::Phone;
}

namespace {

constexpr const char* kSelect =
    "SELECT id, record_type, field_key, label, type, description, required, is_unique, options, "
    "default_value, target, created_at, updated_at FROM custom_field_definitions";

CustomFieldDefinition definitionOf(const Row& row) {
  CustomFieldDefinition d;
  d.id = row.str("id");
  d.recordType = row.str("record_type");
  d.key = row.str("field_key");
  d.label = row.str("label");
  d.type = customFieldTypeOf(row.str("type")).value_or(CustomFieldType::Text);
  d.description = row.str("description");
  d.required = row.flag("required");
  d.unique = row.flag("is_unique");
  const Json options = Json::parse(row.str("options"));
  for (const Json& o : options.asArray()) {
    d.options.push_back({o["value"].asString(), o["label"].asString()});
  }
  if (const auto text = row.optStr("default_value")) d.defaultValue = Json::parse(*text);
  d.target = row.str("target");
  d.createdAt = row.i64("created_at");
  d.updatedAt = row.i64("updated_at");
  return d;
}

Value nullable(const std::string& text) {
  return text.empty() ? Value() : Value(text);
}

Value defaultText(const Json& value) {
  return value.isNull() ? Value() : Value(value.dump());
}

}  // namespace

CustomFieldSet readDefinitions(Queryable& db, const std::string& companyId,
                               const std::string& recordType) {
  CustomFieldSet out;
  const Result rows = db.query(std::string(kSelect) +
                                   " WHERE company_id = ? AND record_type = ? AND deleted_at IS "
                                   "NULL ORDER BY created_at, field_key",
                               {companyId, recordType});
  for (const Row& row : rows) out.push_back(definitionOf(row));
  return out;
}

void lockDefinitions(Tx& tx, const std::string& recordType, bool exclusive) {
  if (tx.dialect() != Dialect::PostgreSQL) return;  // SQLite: one writer at a time
  tx.query(std::string("SELECT ") +
               (exclusive ? "pg_advisory_xact_lock" : "pg_advisory_xact_lock_shared") +
               "(hashtext(?))",
           {"custom_fields:" + tx.companyId() + ":" + recordType});
}

void insertDefinition(Tx& tx, const CustomFieldDefinition& d) {
  tx.exec(
      "INSERT INTO custom_field_definitions (id, company_id, record_type, field_key, label, type, "
      "description, required, is_unique, options, default_value, target, created_at, "
      "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {d.id, tx.companyId(), d.recordType, d.key, d.label, customFieldTypeName(d.type),
       nullable(d.description), d.required, d.unique, optionsJson(d.options).dump(),
       defaultText(d.defaultValue), nullable(d.target), d.createdAt, d.updatedAt});
}

void updateDefinition(Tx& tx, const CustomFieldDefinition& d) {
  tx.exec(
      "UPDATE custom_field_definitions SET label = ?, description = ?, required = ?, is_unique = "
      "?, options = ?, default_value = ?, updated_at = ? WHERE company_id = ? AND id = ?",
      {d.label, nullable(d.description), d.required, d.unique, optionsJson(d.options).dump(),
       defaultText(d.defaultValue), d.updatedAt, tx.companyId(), d.id});
}

void markDeleted(Tx& tx, const CustomFieldDefinition& d, std::int64_t now) {
  tx.exec("UPDATE custom_field_definitions SET deleted_at = ? WHERE company_id = ? AND id = ?",
          {now, tx.companyId(), d.id});
}

// --- The rules of a definition body ----------------------------------------------

namespace {

const std::regex& keyPattern() {
  static const std::regex pattern("^[a-z][a-z0-9_]{0,62}$");
  return pattern;
}

std::vector<CustomFieldOption> readOptions(Validator& v, const Json& body) {
  std::vector<CustomFieldOption> out;
  const Json* options = body.find("options");
  if (options == nullptr || options->isNull()) return out;
  if (!options->isArray()) {
    v.fail("options", "The options must be an array of {value, label}.");
    return out;
  }
  if (options->size() > kMaxOptions) {
    v.fail("options", "The options may hold at most " + std::to_string(kMaxOptions) + " values.");
    return out;
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < options->size(); ++i) {
    const Json& item = options->asArray()[i];
    const std::string at = "options." + std::to_string(i);
    Json flat = Json::object();
    if (item.isObject()) {
      if (const Json* value = item.find("value")) flat.set(at + ".value", *value);
      if (const Json* label = item.find("label")) flat.set(at + ".label", *label);
    }
    Validator nested(flat);
    const auto value = nested.string(at + ".value", {.required = true, .min = 1, .max = 100});
    // A label may be left out (it is then the value), not sent blank.
    const bool labelled = flat.contains(at + ".label") && !flat[at + ".label"].isNull();
    const auto label = nested.string(at + ".label", {.required = labelled, .min = 1, .max = 100});
    for (const auto& [name, messages] : nested.errors()) {
      for (const std::string& message : messages) v.fail(name, message);
    }
    if (!item.isObject()) v.fail(at, "The " + at + " must be an object {value, label}.");
    if (!value.value) continue;
    if (!seen.insert(*value.value).second) {
      v.fail("options", "The option value " + *value.value + " appears twice.");
    }
    out.push_back(
        {*value.value, label.value && !label.value->empty() ? *label.value : *value.value});
  }
  return out;
}

// The checks between members, on the definition as it would be stored.
void checkShape(Validator& v, CustomFieldDefinition& d, const Json& body) {
  const bool sent = body.contains("options") && !body["options"].isNull() &&
                    !(body["options"].isArray() && body["options"].size() == 0);
  if (isSelect(d.type) && d.options.empty() && !sent && !v.errors().contains("options")) {
    v.fail("options",
           "The options field is required for a " + customFieldTypeName(d.type) + " field.");
  }
  if (!isSelect(d.type) && !d.options.empty()) {
    v.fail("options", "Only select and multi_select fields have options.");
  }
  if (d.unique && !mayBeUnique(d.type)) {
    v.fail("unique", "A " + customFieldTypeName(d.type) +
                         " field cannot be unique (only text, email, number, url and phone).");
  }
  if (d.type != CustomFieldType::Reference && body.contains("target") && !body["target"].isNull()) {
    v.fail("target", "Only reference fields have a target.");
  }
  if (d.defaultValue.isNull()) return;
  if (d.type == CustomFieldType::User || d.type == CustomFieldType::Reference) {
    v.fail("default", "A " + customFieldTypeName(d.type) + " field cannot have a default.");
    return;
  }
  if (d.unique) {
    v.fail("default", "A unique field cannot have a default.");
    return;
  }
  FieldErrors errors;
  CustomFieldDefinition probe = d;
  probe.key = "default";
  probe.required = false;
  probe.id = "probe";
  const CustomValues read =
      readValues(Json::object({{"custom_fields", Json::object({{"default", d.defaultValue}})}}),
                 {probe}, false, errors);
  if (!errors.empty()) {
    v.fail("default", "The default must be a valid " + customFieldTypeName(d.type) + " value.");
    return;
  }
  // Stored as a value is (trimmed, lower-cased, in UTC...).
  d.defaultValue = read.at(probe.id);
}

std::optional<std::string> readDescription(Validator& v) {
  return v.string("description", {.max = 500}).value;
}

}  // namespace

CustomFieldDefinition definitionFromBody(const Json& body, const DefinitionContext& context) {
  Validator v(body);
  CustomFieldDefinition d;
  d.recordType = context.recordType;
  const auto key = v.string("key", {.required = true, .max = 63});
  if (key.value) {
    if (!std::regex_match(*key.value, keyPattern())) {
      v.fail("key", "The key must start with a letter and hold only a-z, 0-9 and _.");
    } else if (context.reserved.contains(*key.value)) {
      v.fail("key", "The key " + *key.value + " is a built-in field of the " + context.recordType +
                        " record.");
    }
    d.key = *key.value;
  }
  d.label = v.string("label", {.required = true, .min = 1, .max = 100}).valueOr("");
  std::vector<std::string> types;
  for (const auto& [t, name] : typeNames()) types.emplace_back(name);
  const auto type = v.oneOf("type", types, true);
  if (type.value) d.type = *customFieldTypeOf(*type.value);
  d.description = readDescription(v).value_or("");
  d.required = v.boolean("required").valueOr(false);
  d.unique = v.boolean("unique").valueOr(false);
  d.options = readOptions(v, body);
  if (d.type == CustomFieldType::Reference && type.value) {
    const std::vector<std::string> targets(context.targets.begin(), context.targets.end());
    d.target = v.oneOf("target", targets, true).valueOr("");
  }
  d.defaultValue = body["default"];
  if (type.value) checkShape(v, d, body);
  v.check();
  return d;
}

CustomFieldDefinition patchedDefinition(const Json& body, const CustomFieldDefinition& current) {
  Validator v(body);
  CustomFieldDefinition d = current;
  if (body.contains("key") && body["key"] != Json(current.key)) {
    v.fail("key", "The key cannot be changed.");
  }
  if (body.contains("type") && body["type"] != Json(customFieldTypeName(current.type))) {
    v.fail("type", "The type cannot be changed.");
  }
  if (body.contains("target") &&
      body["target"] != (current.target.empty() ? Json() : Json(current.target))) {
    v.fail("target", "The target cannot be changed.");
  }
  if (const auto label =
          v.string("label", {.required = body.contains("label"), .min = 1, .max = 100});
      label.value) {
    d.label = *label.value;
  }
  if (body.contains("description")) d.description = readDescription(v).value_or("");
  if (const auto required = v.boolean("required"); required.present) {
    d.required = required.valueOr(false);
  }
  if (const auto unique = v.boolean("unique"); unique.present) d.unique = unique.valueOr(false);
  if (body.contains("options")) d.options = readOptions(v, body);
  if (body.contains("default")) d.defaultValue = body["default"];
  checkShape(v, d, body);
  v.check();
  return d;
}

}  // namespace custom_fields
}  // namespace rapport
