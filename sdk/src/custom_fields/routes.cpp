// The definitions' routes (<path>/fields), the unlinking of reference values
// whose record is deleted, and the job that purges a deleted field's rows.
#include "routes.h"

#include <algorithm>

#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/log.h"
#include "rapport/request_rules.h"
#include "rapport/time.h"

namespace rapport::custom_fields {
namespace {

constexpr const char* kNotFound = "Custom field not found.";
constexpr std::size_t kPurgeChunk = 1000;
// Beyond this many companies forRecordWrite's sets start over (as the
// reads' cache does).
constexpr std::size_t kMaxStamped = 10000;

const CustomFieldDefinition& findKey(const CustomFieldSet& fields, const std::string& key) {
  for (const CustomFieldDefinition& d : fields) {
    if (d.key == key) return d;
  }
  throw Error::notFound(kNotFound);
}

// A PATCH that removes options: 409 when a record holds one of them.
void checkRemovedOptions(Tx& tx, const CustomFieldDefinition& before,
                         const CustomFieldDefinition& after) {
  for (const CustomFieldOption& old : before.options) {
    const bool kept = std::any_of(after.options.begin(), after.options.end(),
                                  [&](const CustomFieldOption& o) { return o.value == old.value; });
    if (kept) continue;
    const Result used =
        tx.query("SELECT 1 FROM custom_field_values WHERE field_id = ? AND v_text = ? LIMIT 1",
                 {before.id, old.value});
    if (!used.empty()) {
      throw Error::conflict("The option " + old.value +
                            " is used by records; it cannot be removed.");
    }
  }
}

// unique turned on: the existing values fill the unique table, or 409.
void fillUnique(Tx& tx, const CustomFieldDefinition& d) {
  const bool number = d.type == CustomFieldType::Number;
  const std::string value =
      number ? (tx.dialect() == Dialect::PostgreSQL ? "v_num::text" : "CAST(v_num AS TEXT)")
             : "v_text";
  try {
    // The field's rows through its value index (each row has the column set).
    tx.exec("INSERT INTO custom_field_unique (field_id, value, record_id) SELECT field_id, " +
                value + ", record_id FROM custom_field_values WHERE field_id = ? AND " +
                (number ? "v_num" : "v_text") + " IS NOT NULL",
            {d.id});
  } catch (const DbError& e) {
    if (!e.isUniqueViolation()) throw;
    throw Error::conflict("The " + d.key + " values of existing records are not unique.");
  }
}

}  // namespace

DefinitionRoutes::DefinitionRoutes(Host& host, DefinitionContext context,
                                   std::shared_ptr<Cache> cache, JobHandle purge)
    : host_(host),
      context_(std::move(context)),
      cache_(std::move(cache)),
      purge_(std::move(purge)) {}

CustomFieldSet DefinitionRoutes::forChange(Tx& tx) const {
  lockDefinitions(tx, context_.recordType, true);
  return readDefinitions(tx, tx.companyId(), context_.recordType);
}

std::shared_ptr<const CustomFieldSet> DefinitionRoutes::forRecordWrite(Tx& tx) const {
  lockDefinitions(tx, context_.recordType, false);
  // One row by its key, where the definitions are a dozen columns per field
  // with their options' JSON (a fifth of a create's statement time on the
  // SQLite writer's thread with 20 fields).
  const Result found =
      tx.query("SELECT stamp FROM custom_field_versions WHERE company_id = ? AND record_type = ?",
               {tx.companyId(), context_.recordType});
  // No row: no definition was ever written for the company's record type.
  const std::string stamp = found.empty() ? std::string() : found.front().str("stamp");
  {
    std::lock_guard lock(stampedMutex_);
    const auto it = stamped_.find(tx.companyId());
    if (it != stamped_.end() && it->second.stamp == stamp) return it->second.fields;
  }
  auto fields = std::make_shared<const CustomFieldSet>(
      readDefinitions(tx, tx.companyId(), context_.recordType));
  std::lock_guard lock(stampedMutex_);
  if (stamped_.size() >= kMaxStamped) stamped_.clear();
  stamped_[tx.companyId()] = {stamp, fields};
  return fields;
}

CustomFieldSet DefinitionRoutes::current(Queryable& db, const std::string& companyId) const {
  return readDefinitions(db, companyId, context_.recordType);
}

void DefinitionRoutes::changed(Tx& tx) const {
  // Now (a write later in the same SQLite batch must not use the old set)
  // and after the commit (a read between the two may have cached it again).
  cache_->forget(tx.companyId());
  tx.afterCommit([cache = cache_, company = tx.companyId()] { cache->forget(company); });
}

Response DefinitionRoutes::list(const Request& request) const {
  Json::Array out;
  for (const CustomFieldDefinition& d :
       readDefinitions(host_.db(), request.identity.companyId, context_.recordType)) {
    out.push_back(customFieldJson(d));
  }
  return Response::ok(Json(std::move(out)));
}

Response DefinitionRoutes::get(const Request& request) const {
  const CustomFieldSet fields =
      readDefinitions(host_.db(), request.identity.companyId, context_.recordType);
  return Response::ok(customFieldJson(findKey(fields, request.param("key"))));
}

Response DefinitionRoutes::create(const Request& request) const {
  CustomFieldDefinition d = definitionFromBody(request.bodyObject(), context_);
  if (d.type == CustomFieldType::Reference && !host_.records().knows(d.target)) {
    throw Error::invalidField("target", "The target " + d.target + " is not available.");
  }
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const CustomFieldSet fields = forChange(tx);
    if (fields.size() >= kMaxFields) {
      throw Error::invalidField("key", "A record type may have at most " +
                                           std::to_string(kMaxFields) + " custom fields.");
    }
    for (const CustomFieldDefinition& other : fields) {
      if (other.key == d.key) throw Error::conflict("A custom field with this key already exists.");
    }
    d.id = newId("cf_");
    d.createdAt = d.updatedAt = nowMicros();
    conflictOnDuplicate("A custom field with this key already exists.",
                        [&] { insertDefinition(tx, d); });
    changed(tx);
    tx.emit("crm.field.created", customFieldJson(d));
  });
  return Response::created(customFieldJson(d), "Custom field created.");
}

Response DefinitionRoutes::update(const Request& request) const {
  Json answer;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const CustomFieldSet fields = forChange(tx);
    const CustomFieldDefinition& before = findKey(fields, request.param("key"));
    CustomFieldDefinition after = patchedDefinition(request.bodyObject(), before);
    checkRemovedOptions(tx, before, after);
    if (after.unique && !before.unique) fillUnique(tx, after);
    if (!after.unique && before.unique) {
      tx.exec("DELETE FROM custom_field_unique WHERE field_id = ?", {after.id});
    }
    const Json unchanged = customFieldJson(before);
    if (customFieldJson(after) == unchanged) {  // nothing changes: no write, no event
      answer = unchanged;
      return;
    }
    after.updatedAt = nowMicros();
    updateDefinition(tx, after);
    changed(tx);
    answer = customFieldJson(after);
    tx.emit("crm.field.updated", answer);
  });
  return Response::ok(answer, "Custom field updated.");
}

Response DefinitionRoutes::remove(const Request& request) const {
  const std::string& key = request.param("key");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const CustomFieldSet fields = forChange(tx);
    const CustomFieldDefinition& d = findKey(fields, key);
    const std::int64_t now = nowMicros();
    markDeleted(tx, d, now);
    changed(tx);
    CustomFieldDefinition shown = d;
    shown.updatedAt = now;
    tx.emit("crm.field.deleted", customFieldJson(shown));
    if (purge_) tx.afterCommit([purge = purge_] { purge->wakeOne(); });
  });
  return Response::ok(Json::object({{"key", key}}), "Custom field deleted.");
}

void DefinitionRoutes::unlink(Tx& tx, const std::string& targetType, const std::string& id,
                              const std::string& table) const {
  const auto held = forRecordWrite(tx);
  const CustomFieldSet& all = *held;
  CustomFieldSet pointing;
  for (const CustomFieldDefinition& d : all) {
    const bool points = (d.type == CustomFieldType::Reference && d.target == targetType) ||
                        (d.type == CustomFieldType::User && targetType == "user");
    if (points) pointing.push_back(d);
  }
  if (pointing.empty()) return;
  for (const CustomFieldDefinition& d : pointing) {
    const Result records = tx.query(
        "SELECT record_id FROM custom_field_values WHERE field_id = ? AND v_text = ?", {d.id, id});
    for (const Row& row : records) {
      const std::string recordId = row.str("record_id");
      const Result stored =
          tx.query("SELECT custom_fields FROM " + table + " WHERE company_id = ? AND id = ?",
                   {tx.companyId(), recordId});
      if (stored.empty()) continue;
      Json shown = valuesJson(stored.front().str("custom_fields"), all);
      const CustomValues cleared{{d.id, Json()}};
      tx.exec("UPDATE " + table +
                  " SET custom_fields = ?, updated_at = ? WHERE company_id = ? AND id = ?",
              {mergedJson(shown, all, cleared), nowMicros(), tx.companyId(), recordId});
      tx.exec("DELETE FROM custom_field_values WHERE field_id = ? AND record_id = ?",
              {d.id, recordId});
    }
  }
}

Job DefinitionRoutes::purgeJob(Database& db, const std::string& recordType) {
  return {.name = "custom-fields-purge-" + recordType,
          .interval = std::chrono::minutes(5),
          .run = [&db, recordType](JobContext& context) { purgeDeleted(db, recordType, context); }};
}

// Removes the rows of deleted definitions in chunks (each its own
// transaction, so the writers of other companies interleave), then the
// definitions. Nothing here is visible: reads and queries name only live
// field ids.
void DefinitionRoutes::purgeDeleted(Database& db, const std::string& recordType,
                                    JobContext& context) {
  const Result deleted = db.query(
      "SELECT id, company_id FROM custom_field_definitions WHERE record_type = ? AND deleted_at "
      "IS NOT NULL",
      {recordType});
  const bool pg = db.dialect() == Dialect::PostgreSQL;
  const std::string key = pg ? "ctid" : "rowid";
  for (const Row& row : deleted) {
    const std::string id = row.str("id");
    // The value rows through the index of their type (long text has none),
    // then the unique rows (keyed by field).
    const std::vector<std::pair<const char*, const char*>> parts = {
        {kValues, " AND v_text IS NOT NULL"},
        {kValues, " AND v_num IS NOT NULL"},
        {kValues, " AND v_long IS NOT NULL"},
        {kUnique, ""}};
    for (const auto& [table, rows] : parts) {
      std::int64_t removed = 0;
      do {
        if (context.stopping()) return;
        db.transaction(row.str("company_id"), [&](Tx& tx) {
          removed = tx.exec("DELETE FROM " + std::string(table) + " WHERE " + key + " IN (SELECT " +
                                key + " FROM " + table + " WHERE field_id = ?" + rows + " LIMIT " +
                                std::to_string(kPurgeChunk) + ")",
                            {id});
        });
      } while (removed > 0);
    }
    db.exec("DELETE FROM custom_field_definitions WHERE id = ? AND deleted_at IS NOT NULL", {id});
  }
}

}  // namespace rapport::custom_fields
