// Custom fields (decisions §14, since 9.0): each company adds its own fields
// to a record type that opts in (ResourceSpec::customFields, resource.h).
// The record engine does everything; a module only opts in:
//
//   .customFields = {.migration = "0009_contacts_custom_fields"},
//
// and then serves, beside its record routes:
//   GET    <path>/fields          the company's definitions (every member)
//   POST   <path>/fields          a definition (owner or admin): 201
//   GET    <path>/fields/{key}    one definition; 404 "Custom field not found."
//   PATCH  <path>/fields/{key}    label, description, required, default,
//                                 options, unique (owner or admin)
//   DELETE <path>/fields/{key}    the field and its values (owner or admin)
// with the events crm.field.created, .updated, .deleted (data: the
// definition with record_type), and every record carries `custom_fields`
// (every defined key, null when unset), which POST, PATCH, batches,
// filters (custom_fields.<key>), sorts, ?search= (text types) and the
// per-company API document know.
//
// Storage (the host's migration 0013_custom_fields; docs/custom-fields.md
// says why this shape):
//   custom_field_definitions  one row per definition; `id` ("cf_...") is
//                             fresh for each creation, so the values of a
//                             deleted field never reappear under a new field
//                             of the same key; a deleted definition keeps
//                             its row (deleted_at) until a job has purged
//                             its values.
//   <record table>.custom_fields  TEXT, a JSON object {field id: value}: what
//                             reads show, mapped through the definitions
//                             (a value of a deleted field is never shown).
//   custom_field_values       (company_id, field_id, record_id, v_text,
//                             v_num, v_long, created_at): one row per set
//                             value (a multi_select: one per option), typed
//                             and indexed per value type, which filters and
//                             sorts read.
//   custom_field_unique       (field_id, value, record_id) PRIMARY KEY
//                             (field_id, value): a unique field's values.
//
// Consistency: writes read the definitions in their transaction (on
// PostgreSQL under a shared lock that a definition change takes exclusively;
// SQLite has one writer), so a write never misses a `required`, `unique` or
// `options` change. Reads
// use a cache of the definitions per company and record type, renewed by
// this instance's changes at once and by other instances' within a second.
//
// ABI: CustomFieldOption and CustomFieldDefinition are values the SDK builds
// and modules read (members are ABI).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/json.h"

namespace rapport {

// The 15 types of decisions §14.
enum class CustomFieldType {
  Text,         // a string of at most 255 characters, trimmed
  LongText,     // a string of at most 10,000 characters
  Number,       // an integer
  Decimal,      // a JSON number with at most 6 decimals
  Money,        // integer cents, not negative
  Boolean,      // true or false
  Date,         // "YYYY-MM-DD"
  DateTime,     // ISO-8601 with any offset, answered in UTC like created_at
  Select,       // one of `options`' values
  MultiSelect,  // an array of distinct option values
  Email,        // lower-cased
  Url,          // http or https
  Phone,        // digits, spaces and + - ( ) . , 3 to 32 characters
  User,         // a member's user id ("user_...")
  Reference,    // the id of a record of `target` in the company
};

// "text", "long_text", ..., and back (nullopt: not a type).
RAPPORT_SDK_API std::string customFieldTypeName(CustomFieldType type);
RAPPORT_SDK_API std::optional<CustomFieldType> customFieldTypeOf(const std::string& name);

struct CustomFieldOption {
  std::string value;
  std::string label;
};

// One company's definition of one field of one record type.
struct CustomFieldDefinition {
  std::string id;          // "cf_...": the storage's name for it
  std::string recordType;  // "contact"
  std::string key;         // "lead_source"
  std::string label;
  CustomFieldType type = CustomFieldType::Text;
  std::string description;  // empty: none (null)
  bool required = false;
  bool unique = false;
  std::vector<CustomFieldOption> options;  // Select and MultiSelect
  Json defaultValue;                       // null: none
  std::string target;                      // Reference: "contact", "company", ...
  std::int64_t createdAt = 0;
  std::int64_t updatedAt = 0;
};

// The definition as the API answers it: {key, label, type, description,
// required, unique, options, default, target, record_type, created_at,
// updated_at}.
RAPPORT_SDK_API Json customFieldJson(const CustomFieldDefinition& definition);

// The live definitions of one record type of one company, in creation order.
using CustomFieldSet = std::vector<CustomFieldDefinition>;

// Reads them (no cache): for the host's per-company API document and tools.
RAPPORT_SDK_API CustomFieldSet readCustomFields(Queryable& db, const std::string& companyId,
                                                const std::string& recordType);

// The JSON schema of a record's `custom_fields` for `fields` (api_doc.h):
// an object with one property per key (its type, an enum for select types,
// nullable), every key present in answers. Without definitions: a free
// object.
RAPPORT_SDK_API Json customFieldsSchema(const CustomFieldSet& fields);

// The marker the engine puts on a record schema's `custom_fields` property
// ({"x-rapport-custom-fields": "<record type>"}), which the host's
// per-company API document replaces with customFieldsSchema.
inline constexpr const char* kCustomFieldsMarker = "x-rapport-custom-fields";

}  // namespace rapport
