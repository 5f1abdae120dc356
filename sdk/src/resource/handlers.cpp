// The record engine's routes: the list, its sub-lists and search, create,
// get, update, delete and the actions, each in one transaction, plus the
// record type other modules see through the directory (records.h).
#include <algorithm>
#include <chrono>

#include "../custom_fields/routes.h"
#include "../tags_sql.h"
#include "doc.h"
#include "internal.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/record_lookup.h"
#include "rapport/time.h"

namespace rapport {
namespace resource_detail {
namespace {

using custom_fields::CustomValues;
using custom_fields::DefinitionRoutes;

// The record's JSON: the declared fields, and custom_fields when the
// resource takes them (`fields`: the company's definitions).
Json recordJson(const Resource& resource, const Row& row, const CustomFieldSet* fields) {
  Json json = resource.toJson(row);
  if (fields != nullptr) {
    json.set("custom_fields", custom_fields::valuesJson(row.str("custom_fields"), *fields));
  }
  return json;
}

// The record of `row` (columns()) as GET shows it (other modules' augments
// included).
Json shown(const Resource& resource, const RecordDirectory& records, Queryable& db,
           const std::string& tenant, const Row& row, const CustomFieldSet* fields) {
  Json::Array out{recordJson(resource, row, fields)};
  records.augment(db, tenant, resource.spec().recordType, out);
  return std::move(out.front());
}

// The record as GET shows it (other modules' augments included), or nullopt.
std::optional<Json> show(const Resource& resource, const RecordDirectory& records, Queryable& db,
                         const std::string& tenant, const std::string& id, RowLock lock,
                         const CustomFieldSet* fields) {
  const ResourceSpec& spec = resource.spec();
  const auto row = selectRecord(db, resource.columns(), spec.table, tenant, id, lock);
  if (!row) return std::nullopt;
  return shown(resource, records, db, tenant, *row, fields);
}

std::string insertSql(const ResourceSpec& spec, const ResourceValues& values) {
  std::string columns = "id, company_id";
  std::string marks = "?, ?";
  for (const auto& [column, value] : values) {
    columns += ", " + column;
    marks += ", ?";
  }
  return "INSERT INTO " + spec.table + " (" + columns + ", created_at, updated_at) VALUES (" +
         marks + ", ?, ?)";
}

std::string updateSql(const ResourceSpec& spec, const ResourceValues& values) {
  std::string sets;
  for (const auto& [column, value] : values) sets += column + " = ?, ";
  return "UPDATE " + spec.table + " SET " + sets + "updated_at = ? WHERE company_id = ? AND id = ?";
}

// The field's value in `values` as the record's JSON shows it, or nullopt
// when the write does not touch it.
std::optional<Json> sentJson(const ResourceField& field, const ResourceValues& values) {
  if (field.kind == FieldKind::Related) {
    const Value* type = findValue(values, relatedTypeColumn(field));
    const Value* id = findValue(values, relatedIdColumn(field));
    if (type == nullptr || id == nullptr) return std::nullopt;
    if (type->isNull()) return Json();
    return Json::object({{"type", type->toJson()}, {"id", id->toJson()}});
  }
  const Value* value = findValue(values, columnOf(field));
  if (value == nullptr) return std::nullopt;
  if (field.kind == FieldKind::Tags) return Json::parse(value->asString());
  if (field.kind == FieldKind::DateTime && !value->isNull()) {
    return Json(isoTimestamp(value->asInt()));
  }
  return value->toJson();
}

void eraseColumns(ResourceValues& values, const ResourceField& field) {
  for (const std::string& column : columnsOf(field)) {
    std::erase_if(values, [&](const auto& entry) { return entry.first == column; });
  }
}

// What a PATCH sent that would not change the record is dropped: a PATCH
// that changes nothing writes nothing and emits nothing. A create-only field
// may be sent with its current value, never another.
void keepChanges(const ResourceSpec& spec, ResourceValues& values, const Json& current) {
  for (const ResourceField& field : spec.fields) {
    const auto sent = sentJson(field, values);
    if (!sent) continue;
    const bool creating = field.access == FieldAccess::CreateOnly;
    if (creating && *sent != current[field.name]) {
      throw Error::invalidField(field.name,
                                field.changeMessage.empty()
                                    ? "The " + field.name + " cannot be changed after creation."
                                    : field.changeMessage);
    }
    if (*sent == current[field.name]) eraseColumns(values, field);
  }
}

// The target of a reference about to be written, locked until the commit
// (RecordDirectory::lockForReference): a delete racing the write waits, then
// unlinks it. 404 with the target's message when it is not there.
void lockReferences(const ResourceSpec& spec, const RecordDirectory& records, Tx& tx,
                    const ResourceValues& values, const Json* current) {
  for (const ResourceField& field : spec.fields) {
    if (field.kind != FieldKind::Reference && field.kind != FieldKind::Related) continue;
    const auto sent = sentJson(field, values);
    if (!sent || sent->isNull()) continue;
    if (current != nullptr && *sent == (*current)[field.name]) continue;  // unchanged
    const bool related = field.kind == FieldKind::Related;
    const std::string type =
        related ? (*sent)["type"].asString() : field.references.front().recordType;
    const std::string id = related ? (*sent)["id"].asString() : sent->asString();
    const auto& target =
        *std::find_if(field.references.begin(), field.references.end(),
                      [&](const ResourceReference& t) { return t.recordType == type; });
    if (!records.lockForReference(tx, type, id)) throw Error::notFound(target.notFound);
  }
}

std::vector<std::string> tagsOf(const ResourceField& field, const ResourceValues& values) {
  const Value* text = findValue(values, columnOf(field));
  return text == nullptr ? std::vector<std::string>{} : tagsFromJsonText(text->asString());
}

// The routes of one resource; copies share the declaration.
class Handlers {
 public:
  Handlers(Host& host, Resource resource, std::set<std::string> unavailable,
           std::shared_ptr<DefinitionRoutes> definitions)
      : host_(host),
        resource_(std::move(resource)),
        unavailable_(std::move(unavailable)),
        tags_(tagNamesOf(resource_.spec())),
        definitions_(std::move(definitions)) {}

  const std::shared_ptr<DefinitionRoutes>& definitions() const { return definitions_; }

  const std::set<std::string>& unavailable() const { return unavailable_; }
  const ResourceSpec& resourceSpec() const { return resource_.spec(); }

  Response list(const Request& request) const {
    const std::string& tenant = request.identity.companyId;
    const auto snapshot = snapshotFor(host_.db(), tenant);
    return answer(request,
                  whereOf(resource_.spec(), request, host_.db().dialect(), tenant, unavailable_,
                          nullptr, searchedFields(snapshot), &host_.db()),
                  snapshot);
  }

  // The records pointing at the referenced record {id}.
  Response subList(const Request& request, const ResourceField& field,
                   const ResourceReference& target) const {
    const std::string& parent = request.param("id");
    const std::string& tenant = request.identity.companyId;
    if (!host_.records().exists(host_.db(), tenant, target.recordType, parent)) {
      throw Error::notFound(target.parentNotFound.empty() ? target.notFound
                                                          : target.parentNotFound);
    }
    // The path decides the parent: the field's own filter is left out
    // (whereOf skips its ?<name>=), and so are a Related field's
    // ?<column>_type= and ?<column>_id=, which the module's listFilters
    // read; the request is copied only when it sends them.
    const std::string typeParam = relatedTypeColumn(field);
    const std::string idParam = relatedIdColumn(field);
    std::optional<Request> scoped;
    if (field.kind == FieldKind::Related &&
        (request.query.contains(typeParam) || request.query.contains(idParam))) {
      scoped = request;
      scoped->query.erase(typeParam);
      scoped->query.erase(idParam);
    }
    const auto snapshot = snapshotFor(host_.db(), tenant);
    WhereClause where =
        whereOf(resource_.spec(), scoped ? *scoped : request, host_.db().dialect(), tenant,
                unavailable_, &field, searchedFields(snapshot), &host_.db());
    if (field.kind == FieldKind::Related) {
      where.add(relatedTypeColumn(field) + " = ? AND " + relatedIdColumn(field) + " = ?",
                {target.recordType, parent});
    } else {
      where.add(columnOf(field) + " = ?", {parent});
    }
    return answer(request, std::move(where), snapshot);
  }

  Response search(const Request& request) const {
    const auto snapshot = snapshotFor(host_.db(), request.identity.companyId);
    const CustomFieldSet* fields = snapshot ? &snapshot->fields : nullptr;
    return queryOf(snapshot).search(host_, request, resource_.columns(), [&](const Row& row) {
      return recordJson(resource_, row, fields);
    });
  }

  Response create(const Request& request) const {
    const ResourceSpec& spec = resource_.spec();
    const Json& body = request.bodyObject();
    ResourceValues values = validated(request, ResourceWrite::Create);
    const std::string id = newId(spec.idPrefix);
    Json created;
    host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
      const auto held = fieldsForWrite(tx);
      const CustomFieldSet& fields = *held;
      const CustomValues custom = customValues(body, fields, true);
      lockReferences(spec, host_.records(), tx, values, nullptr);
      checkCustomReferences(tx, fields, custom);
      if (spec.rules.beforeWrite) {
        ResourceChange change{ResourceWrite::Create, body, nullptr, values};
        spec.rules.beforeWrite(tx, change);
      }
      const std::int64_t now = nowMicros();
      if (definitions_) {
        setValue(values, "custom_fields",
                 Value(custom_fields::mergedJson(Json::object(), fields, custom)));
      }
      Params params{id, tx.companyId()};
      for (const auto& [column, value] : values) params.push_back(value);
      params.insert(params.end(), {now, now});
      // The row as stored comes back with the INSERT (RETURNING), not from
      // a SELECT after it: a round trip less per create.
      Result inserted;
      conflictOnDuplicate(duplicateMessage(spec), [&] {
        inserted = tx.query(insertSql(spec, values) + " RETURNING " + resource_.columns(), params);
      });
      if (const ResourceField* field = tagsField(spec)) {
        detail::insertTagRows(tx, tags_->view(), id, tagsOf(*field, values));
      }
      writeCustomRows(tx, fields, custom, id, now, true);
      created = shown(resource_, host_.records(), tx, tx.companyId(), inserted.rows.at(0),
                      definitions_ ? &fields : nullptr);
      tx.emit(spec.eventPrefix + ".created", created);
    });
    return Response::created(created, spec.noun + " created.");
  }

  Response get(const Request& request) const {
    const auto snapshot = snapshotFor(host_.db(), request.identity.companyId);
    auto shown = show(resource_, host_.records(), host_.db(), request.identity.companyId,
                      request.param("id"), RowLock::None, snapshot ? &snapshot->fields : nullptr);
    if (!shown) throw Error::notFound(notFoundMessage(resource_.spec()));
    return Response::ok(std::move(*shown));
  }

  Response update(const Request& request) const {
    const ResourceSpec& spec = resource_.spec();
    const Json& body = request.bodyObject();
    ResourceValues values = validated(request, ResourceWrite::Update);
    const std::string& id = request.param("id");
    Json updated;
    host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
      const auto held = fieldsForWrite(tx);
      const CustomFieldSet& fields = *held;
      CustomValues custom = customValues(body, fields, false);
      const Json current = lockedRecord(tx, id, fields);
      keepChanges(spec, values, current);
      keepCustomChanges(fields, custom, current);
      lockReferences(spec, host_.records(), tx, values, &current);
      checkCustomReferences(tx, fields, custom);
      if (spec.rules.beforeWrite) {
        ResourceChange change{ResourceWrite::Update, body, &current, values};
        spec.rules.beforeWrite(tx, change);
      }
      if (values.empty() && custom.empty()) {  // nothing sent that can change: no write, no event
        updated = current;
        return;
      }
      const std::int64_t now = nowMicros();
      if (!custom.empty()) {
        setValue(values, "custom_fields",
                 Value(custom_fields::mergedJson(current["custom_fields"], fields, custom)));
        writeCustomRows(tx, fields, custom, id,
                        parseIsoTimestamp(current["created_at"].asString()).value_or(now), false);
      }
      updated = write(tx, id, values, current, now, fields);
      tx.emit(spec.eventPrefix + ".updated", updated);
    });
    return Response::ok(updated, spec.noun + " updated.");
  }

  Response remove(const Request& request) const {
    const ResourceSpec& spec = resource_.spec();
    const std::string& id = request.param("id");
    host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
      if (tags_) deleteTagRows(tx, tags_->view(), id);
      if (definitions_) custom_fields::deleteIndexRows(tx, *fieldsForWrite(tx), id);
      const std::int64_t deleted = tx.exec(
          "DELETE FROM " + spec.table + " WHERE company_id = ? AND id = ?", {tx.companyId(), id});
      if (deleted == 0) throw Error::notFound(notFoundMessage(spec));
      host_.records().deleted(tx, spec.recordType, id);  // guards, then reactions
      tx.emit(spec.eventPrefix + ".deleted", Json::object({{"id", id}}));
    });
    return Response::ok(Json::object({{"id", id}}), spec.noun + " deleted.");
  }

  Response act(const Request& request, const ResourceAction& action) const {
    const std::string& id = request.param("id");
    Json changed;
    host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
      const auto held = fieldsForWrite(tx);
      const CustomFieldSet& fields = *held;
      const Json current = lockedRecord(tx, id, fields);
      const std::int64_t now = nowMicros();
      ActionOutcome outcome = action.apply({request, current, tx, now});
      if (!outcome.changed) {  // nothing to change: no write, no event
        changed = current;
        return;
      }
      changed = write(tx, id, outcome.values, current, now, fields);
      Json data = changed;
      for (const auto& [name, value] : outcome.eventExtras.asObject()) data.set(name, value);
      tx.emit(action.event, data);
    });
    return Response::ok(changed, action.message);
  }

  // A deleted record of the target type leaves these records pointing at
  // nothing, without events (their updated_at moves).
  static void unlink(const ResourceSpec& spec, const ResourceField& field, const std::string& type,
                     Tx& tx, const std::string& id) {
    if (field.kind == FieldKind::Related) {
      const std::string typeColumn = relatedTypeColumn(field);
      const std::string idColumn = relatedIdColumn(field);
      tx.exec("UPDATE " + spec.table + " SET " + typeColumn + " = NULL, " + idColumn +
                  " = NULL, updated_at = ? WHERE company_id = ? AND " + typeColumn + " = ? AND " +
                  idColumn + " = ?",
              {nowMicros(), tx.companyId(), type, id});
      return;
    }
    const std::string column = columnOf(field);
    tx.exec("UPDATE " + spec.table + " SET " + column +
                " = NULL, updated_at = ? WHERE company_id = ? AND " + column + " = ?",
            {nowMicros(), tx.companyId(), id});
  }

  // The record directory's view of the resource (records.h).
  RecordType recordType() const {
    Resource resource = resource_;
    Host* host = &host_;
    std::shared_ptr<DefinitionRoutes> definitions = definitions_;
    return {.exists =
                [resource](Queryable& db, const std::string& tenant, const std::string& id,
                           RecordLock lock) {
                  return selectRecord(db, "1", resource.spec().table, tenant, id, rowLockFor(lock))
                      .has_value();
                },
            .fetch =
                [resource, host, definitions](Queryable& db, const std::string& tenant,
                                              const std::string& id, RecordLock lock) {
                  const auto snapshot =
                      definitions ? definitions->cache()->get(db, tenant) : nullptr;
                  return show(resource, host->records(), db, tenant, id, rowLockFor(lock),
                              snapshot ? &snapshot->fields : nullptr);
                },
            .path = resource.spec().path + "/{id}",
            .query = resource.query(),
            .scope = scopeOf(resource.spec())};
  }

 private:
  Response answer(const Request& request, WhereClause where,
                  const std::shared_ptr<const custom_fields::Snapshot>& snapshot) const {
    const RecordQuery& query = queryOf(snapshot);
    const CustomFieldSet* fields = snapshot ? &snapshot->fields : nullptr;
    return query.answer(host_, query.read(request), std::move(where), resource_.columns(),
                        [&](const Row& row) { return recordJson(resource_, row, fields); });
  }

  // The ids of the company's text fields, which ?search= also matches.
  static std::vector<std::string> searchedFields(
      const std::shared_ptr<const custom_fields::Snapshot>& snapshot) {
    std::vector<std::string> out;
    if (!snapshot) return out;
    for (const CustomFieldDefinition& d : snapshot->fields) {
      if (custom_fields::isTextType(d.type)) out.push_back(d.id);
    }
    return out;
  }

  // The company's definitions for reads (cached), or null without custom fields.
  std::shared_ptr<const custom_fields::Snapshot> snapshotFor(Queryable& db,
                                                             const std::string& tenant) const {
    return definitions_ ? definitions_->cache()->get(db, tenant) : nullptr;
  }
  // The query of the company's records: the resource's, plus its custom fields.
  const RecordQuery& queryOf(const std::shared_ptr<const custom_fields::Snapshot>& snapshot) const {
    return snapshot ? *snapshot->query : resource_.query();
  }

  // The definitions a write holds to (custom_fields.h, "Consistency"), read
  // in its transaction, never from the reads' cache; none without custom
  // fields.
  std::shared_ptr<const CustomFieldSet> fieldsForWrite(Tx& tx) const {
    static const auto none = std::make_shared<const CustomFieldSet>();
    return definitions_ ? definitions_->forRecordWrite(tx) : none;
  }

  // The body's fields by their rules. Their 422 also names what is wrong in
  // its custom_fields (by the definitions as they are now: one 422 with
  // every message); when they pass, the write's transaction checks the
  // custom values against the definitions it holds to.
  ResourceValues validated(const Request& request, ResourceWrite write) const {
    try {
      return resource_.validate(request.bodyObject(), write, unavailable_);
    } catch (const Error& e) {
      if (e.status() != 422 || !definitions_) throw;
      FieldErrors all = e.errors();
      custom_fields::readValues(request.bodyObject(),
                                definitions_->current(host_.db(), request.identity.companyId),
                                write == ResourceWrite::Create, all);
      throw Error::validation(std::move(all));
    }
  }

  // The body's custom values by the definitions the write holds to.
  CustomValues customValues(const Json& body, const CustomFieldSet& fields, bool creating) const {
    if (!definitions_) return {};
    FieldErrors errors;
    CustomValues values = custom_fields::readValues(body, fields, creating, errors);
    if (!errors.empty()) throw Error::validation(std::move(errors));
    return values;
  }

  void checkCustomReferences(Tx& tx, const CustomFieldSet& fields,
                             const CustomValues& values) const {
    if (definitions_) custom_fields::checkReferences(tx, host_.records(), fields, values);
  }

  // A PATCH's custom values that would not change the record are dropped.
  static void keepCustomChanges(const CustomFieldSet& fields, CustomValues& values,
                                const Json& current) {
    for (const CustomFieldDefinition& d : fields) {
      const auto it = values.find(d.id);
      if (it != values.end() && it->second == current["custom_fields"][d.key]) values.erase(it);
    }
  }

  void writeCustomRows(Tx& tx, const CustomFieldSet& fields, const CustomValues& values,
                       const std::string& id, std::int64_t createdAt, bool creating) const {
    if (!definitions_) return;
    const ResourceSpec& spec = resource_.spec();
    custom_fields::writeIndexRows(tx, fields, values, id, createdAt, creating, "", subjectOf(spec));
  }

  // The record as GET shows it, locked until the commit; 404 when absent.
  Json lockedRecord(Tx& tx, const std::string& id, const CustomFieldSet& fields) const {
    auto current = show(resource_, host_.records(), tx, tx.companyId(), id, RowLock::Update,
                        definitions_ ? &fields : nullptr);
    if (!current) throw Error::notFound(notFoundMessage(resource_.spec()));
    return std::move(*current);
  }

  // An update of the row (and of its tag rows when the tags changed); the
  // record as GET shows it afterwards.
  Json write(Tx& tx, const std::string& id, const ResourceValues& values, const Json& current,
             std::int64_t now, const CustomFieldSet& fields) const {
    const ResourceSpec& spec = resource_.spec();
    Params params;
    for (const auto& [column, value] : values) params.push_back(value);
    params.insert(params.end(), {now, tx.companyId(), id});
    conflictOnDuplicate(duplicateMessage(spec), [&] { tx.exec(updateSql(spec, values), params); });
    const ResourceField* field = tagsField(spec);
    if (field != nullptr && findValue(values, columnOf(*field)) != nullptr) {
      const std::vector<std::string> tags = tagsOf(*field, values);
      Json::Array shown;
      for (const std::string& tag : tags) shown.emplace_back(tag);
      if (Json(std::move(shown)) != current[field->name]) {
        replaceTagRows(tx, tags_->view(), id, tags);
      }
    }
    return *show(resource_, host_.records(), tx, tx.companyId(), id, RowLock::None,
                 definitions_ ? &fields : nullptr);
  }

  Host& host_;
  Resource resource_;
  std::set<std::string> unavailable_;
  std::optional<TagNames> tags_;
  std::shared_ptr<DefinitionRoutes> definitions_;  // null without custom fields
};

// The batch route's upserts (batch.h): by the unique field, read as POST
// reads it (a 422 on it when absent or invalid), or by a unique custom field
// that the item's or the batch's match_on names (custom_fields.<key>).
BatchSpec batchSpecOf(const ResourceSpec& spec,
                      const std::shared_ptr<DefinitionRoutes>& definitions) {
  const ResourceField* unique = uniqueField(spec);
  if (unique == nullptr && !definitions) return {};
  std::optional<ResourceField> field;
  if (unique != nullptr) field = *unique;
  const std::string sql = field ? "SELECT id FROM " + spec.table + " WHERE company_id = ? AND " +
                                      columnOf(*field) + " = ?"
                                : "";
  return {
      .upsertBy = field ? field->name : "custom_fields.<key> (match_on)",
      .match = [field, sql, definitions](Queryable& db, const std::string& tenant, const Json& data,
                                         const std::string& matchOn) -> std::optional<std::string> {
        const std::string prefix = "custom_fields.";
        if (definitions && matchOn.starts_with(prefix)) {
          // The definitions as they are now (not the reads' cache): a field
          // made unique a moment ago on another instance matches.
          return custom_fields::matchRecord(db, definitions->current(db, tenant),
                                            matchOn.substr(prefix.size()), data);
        }
        if (!field || (!matchOn.empty() && matchOn != field->name)) {
          throw Error::invalidField("match_on",
                                    field ? "The match_on must be " + field->name +
                                                (definitions ? " or a unique custom field." : ".")
                                          : "The match_on must name a unique custom field "
                                            "(custom_fields.<key>).");
        }
        const Result found = db.query(sql, {tenant, matchValue(*field, data)});
        if (found.empty()) return std::nullopt;
        return found.front().str("id");
      }};
}

// The modules the declaration's references need that are not enabled.
std::set<std::string> unavailableModules(const ResourceSpec& spec, const Host& host) {
  std::set<std::string> out;
  for (const ResourceField& field : spec.fields) {
    for (const ResourceReference& target : field.references) {
      if (!target.module.empty() && !host.moduleEnabled(target.module)) out.insert(target.module);
    }
  }
  return out;
}

void installRecordRoutes(const std::shared_ptr<const Handlers>& handlers, const ResourceSpec& spec,
                         Registry& registry) {
  const std::string scope = scopeOf(spec);
  const RouteOptions read{.scope = scope};
  const RouteOptions write{
      .access = Access::Authenticated, .roles = spec.writeRoles, .scope = scope};
  // A search reads, whatever its method.
  const RouteOptions search{.scope = scope + ":read"};
  const std::string one = spec.path + "/{id}";
  registry.route(
      "GET", spec.path, [handlers](const Request& r) { return handlers->list(r); }, read);
  registry.route(
      "POST", spec.path, [handlers](const Request& r) { return handlers->create(r); }, write);
  registry.route(
      "POST", spec.path + "/search", [handlers](const Request& r) { return handlers->search(r); },
      search);
  registry.route(
      "GET", one, [handlers](const Request& r) { return handlers->get(r); }, read);
  registry.route(
      "PATCH", one, [handlers](const Request& r) { return handlers->update(r); }, write);
  registry.route(
      "DELETE", one, [handlers](const Request& r) { return handlers->remove(r); }, write);
  for (const ResourceAction& action : spec.actions) {
    registry.route(
        action.method, one + action.path,
        [handlers, &action](const Request& r) { return handlers->act(r, action); }, write);
  }
}

// Sub-lists and unlinking, for each reference whose module is enabled.
void installReferences(const std::shared_ptr<const Handlers>& handlers, const ResourceSpec& spec,
                       Registry& registry) {
  for (const ResourceField& field : spec.fields) {
    for (const ResourceReference& target : field.references) {
      if (!isAvailable(target, handlers->unavailable())) continue;
      if (!target.subList.empty()) {
        registry.route("GET", target.subList,
                       [handlers, &field, &target](const Request& r) {
                         return handlers->subList(r, field, target);
                       },
                       {.scope = scopeOf(spec)});
      }
      if (target.unlinkOnDelete) {
        // The handlers keep the declaration the references point into.
        registry.onRecordDeleted(
            target.recordType,
            [handlers, &spec, &field, type = target.recordType](Tx& tx, const std::string& id) {
              Handlers::unlink(spec, field, type, tx, id);
            });
      }
    }
  }
}

void installEvents(const ResourceSpec& spec, Registry& registry) {
  const std::string subject = subjectOf(spec);
  std::vector<std::pair<std::string, std::string>> events = {
      {spec.eventPrefix + ".created", subject + " was created."},
      {spec.eventPrefix + ".updated", subject + " was updated."},
      {spec.eventPrefix + ".deleted", subject + " was deleted."}};
  for (const ResourceAction& action : spec.actions) {
    const auto known = std::find_if(events.begin(), events.end(),
                                    [&](const auto& event) { return event.first == action.event; });
    if (known == events.end()) {
      events.emplace_back(action.event, action.eventDescription);
    } else if (!action.eventDescription.empty()) {
      known->second = action.eventDescription;
    }
  }
  for (const auto& [type, description] : events) registry.eventType(type, description);
}

}  // namespace
}  // namespace resource_detail

using namespace resource_detail;

namespace resource_detail {
namespace {

// The record types a reference custom field may point to.
const std::set<std::string> kReferenceTargets = {"contact", "company", "deal", "activity"};

// The definitions of a resource that takes custom fields: their routes,
// cache, reactions and purge job; null for one that does not.
std::shared_ptr<DefinitionRoutes> customFieldsOf(Host& host, const Resource& resource,
                                                 const std::shared_ptr<const RecordQuery>& base,
                                                 Registry& registry) {
  const ResourceSpec& spec = resource.spec();
  if (spec.customFields.migration.empty()) return nullptr;
  custom_fields::DefinitionContext context{
      .recordType = spec.recordType,
      .reserved = {"id", "company_id", "created_at", "updated_at", "custom_fields"},
      .targets = {}};
  for (const ResourceField& field : spec.fields) context.reserved.insert(field.name);
  context.targets = kReferenceTargets;
  context.targets.insert(spec.recordType);
  // Another instance's definition change reaches this one's reads within a
  // second (PostgreSQL); SQLite has one instance, whose changes forget at once.
  const auto ttl = host.db().dialect() == Dialect::PostgreSQL ? std::chrono::milliseconds(1000)
                                                              : std::chrono::hours(24);
  auto cache = std::make_shared<custom_fields::Cache>(
      spec.recordType,
      [base, table = spec.table](CustomFieldSet fields) {
        custom_fields::Snapshot snapshot{.fields = std::move(fields), .query = base};
        if (!snapshot.fields.empty()) {
          RecordSchema schema = base->schema();
          for (QueryField& f : custom_fields::queryFields(snapshot.fields, table)) {
            schema.fields.push_back(std::move(f));
          }
          snapshot.query = std::make_shared<const RecordQuery>(std::move(schema));
        }
        return snapshot;
      },
      ttl);
  auto definitions =
      std::make_shared<DefinitionRoutes>(host, std::move(context), std::move(cache), nullptr);
  definitions->setPurge(registry.job(DefinitionRoutes::purgeJob(host.db(), spec.recordType)));
  return definitions;
}

void installCustomFields(const std::shared_ptr<DefinitionRoutes>& definitions,
                         const ResourceSpec& spec, Registry& registry) {
  // Definitions are read with the records' scope and changed with fields:manage.
  const RouteOptions read{.scope = scopeOf(spec)};
  const RouteOptions write{.access = Access::Authenticated,
                           .roles = {Role::Owner, Role::Admin},
                           .scope = "fields:manage"};
  const std::string fields = spec.path + "/fields";
  const std::string one = fields + "/{key}";
  registry.route(
      "GET", fields, [definitions](const Request& r) { return definitions->list(r); }, read);
  registry.route(
      "POST", fields, [definitions](const Request& r) { return definitions->create(r); }, write);
  registry.route(
      "GET", one, [definitions](const Request& r) { return definitions->get(r); }, read);
  registry.route(
      "PATCH", one, [definitions](const Request& r) { return definitions->update(r); }, write);
  registry.route(
      "DELETE", one, [definitions](const Request& r) { return definitions->remove(r); }, write);
  std::set<std::string> targets = kReferenceTargets;
  targets.insert(spec.recordType);
  for (const std::string& type : targets) {
    registry.onRecordDeleted(
        type, [definitions, type, table = spec.table](Tx& tx, const std::string& id) {
          definitions->unlink(tx, type, id, table);
        });
  }
}

}  // namespace
}  // namespace resource_detail

void Resource::install(Host& host, Registry& registry) const {
  const ResourceSpec& spec = *spec_;
  for (Migration& generated : migrations()) registry.migration(std::move(generated));
  // The handlers hold a copy of the resource: the routes' captured references
  // to its fields and actions stay valid as long as the routes.
  const auto handlers = std::make_shared<const Handlers>(
      host, *this, unavailableModules(spec, host), customFieldsOf(host, *this, query_, registry));
  if (handlers->definitions()) installCustomFields(handlers->definitions(), spec, registry);
  const ResourceSpec& kept = handlers->resourceSpec();
  installRecordRoutes(handlers, kept, registry);
  installReferences(handlers, kept, registry);
  installEvents(kept, registry);
  registry.recordType(kept.recordType, handlers->recordType());
  detail::describeResource(kept, query(), handlers->unavailable(), registry);
  // After the descriptions: the batch route's is made from them.
  registry.batch(kept.path, batchSpecOf(kept, handlers->definitions()));
}

}  // namespace rapport
