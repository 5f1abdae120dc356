// The custom-fields engine's private parts (rapport/custom_fields.h): the
// definitions' rules and storage, their cache, and a record's values.
// Private to the SDK library; the record engine (sdk/src/resource) calls it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rapport/custom_fields.h"
#include "rapport/db.h"
#include "rapport/error.h"
#include "rapport/json.h"
#include "rapport/record_query.h"
#include "rapport/records.h"

namespace rapport::custom_fields {

// --- The tables (migrations/*/0013_custom_fields.sql) -------------------------

inline constexpr const char* kDefinitions = "custom_field_definitions";
inline constexpr const char* kValues = "custom_field_values";
inline constexpr const char* kUnique = "custom_field_unique";
inline constexpr std::size_t kMaxFields = 100;
inline constexpr std::size_t kMaxOptions = 200;

// --- Definitions ---------------------------------------------------------------

// Where a type's values live in custom_field_values.
enum class Column { Text, Number, Long };
Column columnOf(CustomFieldType type);
const char* columnName(Column column);  // "v_text", "v_num", "v_long"
bool isTextType(CustomFieldType type);  // text, long_text, email, url, phone: ?search=
bool mayBeUnique(CustomFieldType type);

// The live definitions of a record type (creation order); `lockShared`:
// on PostgreSQL, first the shared lock a definition change takes
// exclusively (writeLockOf), so the set read stays true until the commit.
CustomFieldSet readDefinitions(Queryable& db, const std::string& companyId,
                               const std::string& recordType);
void lockDefinitions(Tx& tx, const std::string& recordType, bool exclusive);

// What a definition body may be checked against: the record type's own
// field names (refused as keys) and the record types a reference may target.
struct DefinitionContext {
  std::string recordType;
  std::set<std::string> reserved;
  std::set<std::string> targets;
};

// POST's body as a definition (id and times not set); 422 on each member.
CustomFieldDefinition definitionFromBody(const Json& body, const DefinitionContext& context);
// PATCH's body applied to `current` (422 on key, type or target changes and
// each member's rule).
CustomFieldDefinition patchedDefinition(const Json& body, const CustomFieldDefinition& current);

void insertDefinition(Tx& tx, const CustomFieldDefinition& definition);
void updateDefinition(Tx& tx, const CustomFieldDefinition& definition);
void markDeleted(Tx& tx, const CustomFieldDefinition& definition, std::int64_t now);

// --- Values --------------------------------------------------------------------

// A record's custom values as a write changes them: field id -> canonical
// JSON value (null: cleared). On create every live field is there.
using CustomValues = std::map<std::string, Json>;

// The body's custom_fields read against `fields` (a Validator's vocabulary,
// messages on "custom_fields.<key>"); messages go to `errors`.
CustomValues readValues(const Json& body, const CustomFieldSet& fields, bool creating,
                        FieldErrors& errors);

// In the write's transaction: user and reference values checked (422 on
// custom_fields.<key>) and references locked (RecordDirectory::lockForReference).
void checkReferences(Tx& tx, const RecordDirectory& records, const CustomFieldSet& fields,
                     const CustomValues& values);

// The stored JSON text {field id: value} of a record whose custom_fields
// GET shows as `shown` ({key: value}), after `values` changed it.
std::string mergedJson(const Json& shown, const CustomFieldSet& fields, const CustomValues& values);

// The side rows and unique rows of `values` for the record (its created_at
// is the side rows'; `creating`: it has none yet); 409 `duplicateMessage`,
// by default "<subject> with this <key> already exists.", when a unique
// value is taken.
void writeIndexRows(Tx& tx, const CustomFieldSet& fields, const CustomValues& values,
                    const std::string& recordId, std::int64_t createdAt, bool creating,
                    const std::string& duplicateMessage, const std::string& subject);
// The record whose unique custom field `key` holds the value `data` (a batch
// item's data) sends, or nullopt; 422 on match_on when `key` is not a unique
// field, on custom_fields.<key> when data lacks a valid value.
std::optional<std::string> matchRecord(Queryable& db, const CustomFieldSet& fields,
                                       const std::string& key, const Json& data);

// A deleted record's side and unique rows.
void deleteIndexRows(Tx& tx, const CustomFieldSet& fields, const std::string& recordId);

// The record's custom_fields as GET shows it: every defined key, null when unset.
Json valuesJson(const std::string& stored, const CustomFieldSet& fields);

// The fields a record type's query gains: "custom_fields.<key>" on the side table.
std::vector<QueryField> queryFields(const CustomFieldSet& fields, const std::string& table);

// --- The cache ------------------------------------------------------------------

// One company's definitions of one record type, with the query that knows them.
struct Snapshot {
  CustomFieldSet fields;
  std::shared_ptr<const RecordQuery> query;  // the record type's, plus the fields
};

// Per record type: snapshots per company, kept `ttl` (renewed at once by
// forget(), which this instance's definition changes call after commit).
class Cache {
 public:
  using Build = std::function<Snapshot(CustomFieldSet)>;
  Cache(std::string recordType, Build build, std::chrono::milliseconds ttl);
  std::shared_ptr<const Snapshot> get(Queryable& db, const std::string& companyId);
  void forget(const std::string& companyId);

 private:
  struct Entry {
    std::shared_ptr<const Snapshot> snapshot;
    std::chrono::steady_clock::time_point loaded;
  };
  std::string recordType_;
  Build build_;
  std::chrono::milliseconds ttl_;
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace rapport::custom_fields
