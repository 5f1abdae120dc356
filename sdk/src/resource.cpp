// rapport::Resource: the routes, events and record type of a declared CRUD
// resource, written the way modules/contacts writes them by hand (the same
// helpers of query.h, pagination.h and validation.h, the same messages).
#include "rapport/resource.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/time.h"
#include "rapport/validation.h"
#include "resource_doc.h"

namespace rapport {
namespace {

// --- The declaration's checks ------------------------------------------------

bool isTextKind(FieldKind kind) {
  return kind == FieldKind::Text || kind == FieldKind::Email || kind == FieldKind::Url ||
         kind == FieldKind::Currency;
}

bool isNumberKind(FieldKind kind) {
  return kind == FieldKind::Integer || kind == FieldKind::Money;
}

// A field that is never null in storage.
bool isNotNull(const ResourceField& field) {
  return field.required || field.defaultValue.has_value();
}

bool isIdentifier(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool defaultMatchesKind(const ResourceField& field) {
  const Json& value = *field.defaultValue;
  if (field.kind == FieldKind::Boolean) return value.isBool();
  if (isNumberKind(field.kind)) return value.isInt();
  return value.isString();
}

void refuse(const std::string& message) {
  throw std::invalid_argument("resource declaration: " + message);
}

void checkField(const ResourceField& field, std::set<std::string>& names) {
  static const std::set<std::string> kReserved = {"id",         "company_id",  "created_at",
                                                  "updated_at", "search_text", "seq"};
  if (!isIdentifier(field.name)) refuse("invalid field name '" + field.name + "'");
  if (kReserved.count(field.name)) refuse("the field name '" + field.name + "' is reserved");
  if (!names.insert(field.name).second) refuse("the field '" + field.name + "' is declared twice");
  if (field.defaultValue && !defaultMatchesKind(field)) {
    refuse("the default of '" + field.name + "' does not match its kind");
  }
  if (field.sortable && field.kind == FieldKind::Boolean && !isNotNull(field)) {
    refuse("the sortable boolean '" + field.name + "' needs a default or required");
  }
  if (field.sortable && field.kind == FieldKind::Integer && !isNotNull(field) &&
      (!field.min || *field.min < 0)) {
    refuse("the sortable nullable integer '" + field.name + "' needs min >= 0");
  }
}

void checkSpec(const ResourceSpec& spec) {
  if (spec.path.empty() || spec.path.front() != '/') refuse("the path must start with '/'");
  if (!isIdentifier(spec.table)) refuse("invalid table name '" + spec.table + "'");
  if (spec.recordType.empty()) refuse("the record type is empty");
  if (spec.idPrefix.empty()) refuse("the id prefix is empty");
  if (spec.eventPrefix.empty()) refuse("the event prefix is empty");
  if (spec.noun.empty()) refuse("the noun is empty");
  if (!isIdentifier(spec.countsTable) && !spec.countsTable.empty()) {
    refuse("invalid counts table name '" + spec.countsTable + "'");
  }
  std::set<std::string> names;
  for (const ResourceField& field : spec.fields) checkField(field, names);
  const auto unique = std::count_if(spec.fields.begin(), spec.fields.end(),
                                    [](const ResourceField& field) { return field.unique; });
  if (unique > 1) refuse("at most one field may be unique");
}

// --- Words -------------------------------------------------------------------

// "a product", "an invoice": the noun in a sentence.
std::string withArticle(const std::string& noun) {
  const std::string lower = toLower(noun);
  const bool vowel = std::string_view("aeiou").find(lower.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + lower;
}

std::string capitalised(std::string text) {
  if (!text.empty() && text.front() >= 'a' && text.front() <= 'z') text.front() -= 'a' - 'A';
  return text;
}

std::string notFoundMessage(const ResourceSpec& spec) {
  return spec.noun + " not found.";
}

std::string duplicateMessage(const ResourceSpec& spec) {
  for (const ResourceField& field : spec.fields) {
    if (!field.unique) continue;
    if (!field.uniqueMessage.empty()) return field.uniqueMessage;
    return capitalised(withArticle(spec.noun)) + " with this " + field.name + " already exists.";
  }
  return Error::genericMessage(409);
}

// --- Values ------------------------------------------------------------------

Value valueOf(const Json& json) {
  switch (json.type()) {
    case Json::Type::Bool:
      return Value(json.asBool());
    case Json::Type::Int:
      return Value(json.asInt());
    case Json::Type::String:
      return Value(json.asString());
    default:
      return Value();
  }
}

template <typename T>
Value valueOf(const Field<T>& read) {
  return read.value ? Value(*read.value) : Value();
}

// One field read by its kind's rule: whether the body had it, and its value
// (null when sent as null, or when it broke the rule: the validator has the
// message then).
struct Read {
  bool present = false;
  Value value;
};

template <typename T>
Read readOf(const Field<T>& read) {
  return {read.present, valueOf(read)};
}

Read readField(Validator& v, const ResourceField& field, bool required) {
  const std::string& name = field.name;
  switch (field.kind) {
    case FieldKind::Text: {
      if (required) return readOf(v.string(name, {.required = true, .max = field.maxLength}));
      return readOf(optionalText(v, name, field.maxLength));
    }
    case FieldKind::Email:
      return readOf(v.email(name, required));
    case FieldKind::Url:
      return readOf(v.url(name, required));
    case FieldKind::Integer:
      return readOf(v.integer(name, {.required = required, .min = field.min, .max = field.max}));
    case FieldKind::Money:
      return readOf(v.integer(name, {.required = required, .min = 0, .max = field.max}));
    case FieldKind::Boolean:
      return readOf(v.boolean(name, required));
    case FieldKind::Date:
      return readOf(v.date(name, required));
    case FieldKind::Currency:
      return readOf(v.currency(name, required));
  }
  return {};
}

// A filter's text as the field's column holds it; nullopt (with a message in
// `errors`) when it is malformed.
std::optional<Value> filterValue(const ResourceField& field, const std::string& text,
                                 FieldErrors& errors) {
  if (field.kind == FieldKind::Boolean) {
    if (text == "true" || text == "false") return Value(text == "true");
    errors[field.name].push_back("The " + field.name + " field must be true or false.");
    return std::nullopt;
  }
  if (isNumberKind(field.kind)) {
    const Json number = [&] {
      try {
        return Json::parse(text);
      } catch (const JsonParseError&) {
        return Json();
      }
    }();
    if (number.isInt()) return Value(number.asInt());
    errors[field.name].push_back("The " + field.name + " must be an integer.");
    return std::nullopt;
  }
  if (field.kind == FieldKind::Email) return Value(toLower(text));
  return Value(text);
}

// --- Storage -----------------------------------------------------------------

// The record as GET shows it (other modules' augments included), or nullopt.
std::optional<Json> show(const Resource& resource, const RecordDirectory& records, Queryable& db,
                         const std::string& tenant, const std::string& id, RowLock lock) {
  const ResourceSpec& spec = resource.spec();
  const auto row = selectRecord(db, resource.columns(), spec.table, tenant, id, lock);
  if (!row) return std::nullopt;
  Json::Array shown{resource.toJson(*row)};
  records.augment(db, tenant, spec.recordType, shown);
  return std::move(shown.front());
}

std::string insertSql(const ResourceSpec& spec) {
  std::string columns = "id, company_id";
  std::string marks = "?, ?";
  for (const ResourceField& field : spec.fields) {
    columns += ", " + field.name;
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

// The batch route's upserts (batch.h): by the unique field, read by its rule
// (a 422 on it when absent or invalid); none without a unique field.
BatchSpec batchSpecOf(const ResourceSpec& spec) {
  const auto unique = std::find_if(spec.fields.begin(), spec.fields.end(),
                                   [](const ResourceField& field) { return field.unique; });
  if (unique == spec.fields.end()) return {};
  const std::string sql =
      "SELECT id FROM " + spec.table + " WHERE company_id = ? AND " + unique->name + " = ?";
  return {.upsertBy = unique->name,
          .match = [field = *unique, sql](Queryable& db, const std::string& tenant,
                                          const Json& data) -> std::optional<std::string> {
            Validator v(data);
            const Read read = readField(v, field, true);
            v.check();
            const Result found = db.query(sql, {tenant, read.value});
            if (found.empty()) return std::nullopt;
            return found.front().str("id");
          }};
}

// What clients may query on the resource (record_query.h): every field,
// sorted by the expressions its indexes hold (sortExpression).
RecordSchema querySchemaOf(const ResourceSpec& spec) {
  RecordSchema schema{.recordType = spec.recordType, .table = spec.table};
  for (const ResourceField& field : spec.fields) {
    QueryKind kind = QueryKind::Text;
    if (field.kind == FieldKind::Integer || field.kind == FieldKind::Money) {
      kind = QueryKind::Number;
    } else if (field.kind == FieldKind::Boolean) {
      kind = QueryKind::Boolean;
    } else if (field.kind == FieldKind::Date) {
      kind = QueryKind::Date;
    }
    schema.fields.push_back({.name = field.name,
                             .column = field.name,
                             .kind = kind,
                             .nullable = !isNotNull(field),
                             // The indexed expression where the field has one.
                             .sortExpression = field.sortable ? sortExpression(field) : "",
                             .searchable = field.searchable});
  }
  const bool searchable = std::any_of(spec.fields.begin(), spec.fields.end(),
                                      [](const ResourceField& field) { return field.searchable; });
  if (searchable) schema.searchTable = spec.table + "_search";
  schema.countsTable = spec.countsTable;
  return schema;
}

// --- Handlers ----------------------------------------------------------------

// The routes of one resource; copies share the declaration.
class Handlers {
 public:
  Handlers(Host& host, Resource resource) : host_(host), resource_(std::move(resource)) {}

  // The list: the resource's own filters (search, ?<field>=), then the
  // query language (record_query.h), which also runs the augments.
  Response list(const Request& request) const {
    const RecordQuery& query = resource_.query();
    return query.answer(host_, query.read(request),
                        resource_.where(request, host_.db().dialect(), request.identity.companyId),
                        resource_.columns(),
                        [this](const Row& row) { return resource_.toJson(row); });
  }

  Response search(const Request& request) const {
    return resource_.query().search(host_, request, resource_.columns(),
                                    [this](const Row& row) { return resource_.toJson(row); });
  }

  Response create(const Request& request) const {
    const ResourceSpec& spec = resource_.spec();
    const ResourceValues values = resource_.validate(request.bodyObject(), ResourceWrite::Create);
    const std::string id = newId(spec.idPrefix);
    Json created;
    host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
      const std::int64_t now = nowMicros();
      Params params{id, tx.companyId()};
      for (const auto& [column, value] : values) params.push_back(value);
      params.insert(params.end(), {now, now});
      conflictOnDuplicate(duplicateMessage(spec), [&] { tx.exec(insertSql(spec), params); });
      created = *show(resource_, host_.records(), tx, tx.companyId(), id, RowLock::None);
      tx.emit(spec.eventPrefix + ".created", created);
    });
    return Response::created(created, spec.noun + " created.");
  }

  Response get(const Request& request) const {
    auto shown = show(resource_, host_.records(), host_.db(), request.identity.companyId,
                      request.param("id"), RowLock::None);
    if (!shown) throw Error::notFound(notFoundMessage(resource_.spec()));
    return Response::ok(std::move(*shown));
  }

  Response update(const Request& request) const {
    const ResourceSpec& spec = resource_.spec();
    const ResourceValues values = resource_.validate(request.bodyObject(), ResourceWrite::Update);
    const std::string& id = request.param("id");
    Json updated;
    host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
      auto current = show(resource_, host_.records(), tx, tx.companyId(), id, RowLock::Update);
      if (!current) throw Error::notFound(notFoundMessage(spec));
      if (values.empty()) {  // nothing sent that can change: no write, no event
        updated = std::move(*current);
        return;
      }
      Params params;
      for (const auto& [column, value] : values) params.push_back(value);
      params.insert(params.end(), {nowMicros(), tx.companyId(), id});
      conflictOnDuplicate(duplicateMessage(spec),
                          [&] { tx.exec(updateSql(spec, values), params); });
      updated = *show(resource_, host_.records(), tx, tx.companyId(), id, RowLock::None);
      tx.emit(spec.eventPrefix + ".updated", updated);
    });
    return Response::ok(updated, spec.noun + " updated.");
  }

  Response remove(const Request& request) const {
    const ResourceSpec& spec = resource_.spec();
    const std::string& id = request.param("id");
    host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
      const std::int64_t deleted = tx.exec(
          "DELETE FROM " + spec.table + " WHERE company_id = ? AND id = ?", {tx.companyId(), id});
      if (deleted == 0) throw Error::notFound(notFoundMessage(spec));
      host_.records().deleted(tx, spec.recordType, id);  // guards, then reactions
      tx.emit(spec.eventPrefix + ".deleted", Json::object({{"id", id}}));
    });
    return Response::ok(Json::object({{"id", id}}), spec.noun + " deleted.");
  }

  // The record directory's view of the resource (records.h).
  RecordType recordType() const {
    Resource resource = resource_;
    Host* host = &host_;
    return {.exists =
                [resource](Queryable& db, const std::string& tenant, const std::string& id,
                           RecordLock lock) {
                  return selectRecord(db, "1", resource.spec().table, tenant, id, rowLockFor(lock))
                      .has_value();
                },
            .fetch =
                [resource, host](Queryable& db, const std::string& tenant, const std::string& id,
                                 RecordLock lock) {
                  return show(resource, host->records(), db, tenant, id, rowLockFor(lock));
                },
            .path = resource.spec().path + "/{id}",
            .query = resource.query()};
  }

 private:
  Host& host_;
  Resource resource_;
};

}  // namespace

// --- Resource ----------------------------------------------------------------

Resource::Resource(ResourceSpec spec) {
  checkSpec(spec);
  spec_ = std::make_shared<const ResourceSpec>(std::move(spec));
  query_ = std::make_shared<const RecordQuery>(querySchemaOf(*spec_));
}

const ResourceSpec& Resource::spec() const {
  return *spec_;
}

const RecordQuery& Resource::query() const {
  return *query_;
}

void Resource::install(Host& host, Registry& registry) const {
  const ResourceSpec& spec = *spec_;
  const auto handlers = std::make_shared<const Handlers>(host, *this);
  const RouteOptions read{};
  const RouteOptions write{.access = Access::Authenticated, .roles = spec.writeRoles};
  const std::string one = spec.path + "/{id}";
  registry.route(
      "GET", spec.path, [handlers](const Request& r) { return handlers->list(r); }, read);
  registry.route(
      "POST", spec.path, [handlers](const Request& r) { return handlers->create(r); }, write);
  registry.route(
      "POST", spec.path + "/search", [handlers](const Request& r) { return handlers->search(r); },
      read);
  registry.route(
      "GET", one, [handlers](const Request& r) { return handlers->get(r); }, read);
  registry.route(
      "PATCH", one, [handlers](const Request& r) { return handlers->update(r); }, write);
  registry.route(
      "DELETE", one, [handlers](const Request& r) { return handlers->remove(r); }, write);
  const std::string subject = capitalised(withArticle(spec.noun));
  registry.eventType(spec.eventPrefix + ".created", subject + " was created.");
  registry.eventType(spec.eventPrefix + ".updated", subject + " was updated.");
  registry.eventType(spec.eventPrefix + ".deleted", subject + " was deleted.");
  registry.recordType(spec.recordType, handlers->recordType());
  detail::describeResource(spec, query(), registry);
  // After the descriptions: the batch route's is made from them.
  registry.batch(spec.path, batchSpecOf(spec));
}

ResourceValues Resource::validate(const Json& body, ResourceWrite write) const {
  Validator v(body);
  ResourceValues values;
  for (const ResourceField& field : spec_->fields) {
    const bool creating = write == ResourceWrite::Create;
    // PATCH may leave a required field out, but never clear it.
    const Read read = readField(v, field, field.required && (creating || v.present(field.name)));
    if (!creating && !read.present) continue;
    const bool useDefault = read.value.isNull() && field.defaultValue;
    values.emplace_back(field.name, useDefault ? valueOf(*field.defaultValue) : read.value);
  }
  v.check();
  return values;
}

std::string Resource::columns() const {
  std::string columns = "id";
  for (const ResourceField& field : spec_->fields) columns += ", " + field.name;
  return columns + ", created_at, updated_at";
}

Json Resource::toJson(const Row& row) const {
  Json json = Json::object({{"id", row.str("id")}});
  for (const ResourceField& field : spec_->fields) {
    const bool flag = field.kind == FieldKind::Boolean && !row.isNull(field.name);
    json.set(field.name, flag ? Json(row.flag(field.name)) : row[field.name].toJson());
  }
  json.set("created_at", isoTimestamp(row.i64("created_at")));
  json.set("updated_at", isoTimestamp(row.i64("updated_at")));
  return json;
}

WhereClause Resource::where(const Request& request, Dialect dialect,
                            const std::string& tenant) const {
  const ResourceSpec& spec = *spec_;
  FieldErrors errors;
  WhereClause where(dialect, tenant);
  const bool searchable = std::any_of(spec.fields.begin(), spec.fields.end(),
                                      [](const ResourceField& field) { return field.searchable; });
  if (searchable) {
    if (const auto term = searchParam(request, errors)) {
      addTextSearch(where, spec.table + "_search", *term);
    }
  }
  for (const ResourceField& field : spec.fields) {
    if (!field.filterable) continue;
    const auto text = filterParam(request, field.name);
    if (!text) continue;
    if (const auto value = filterValue(field, *text, errors)) {
      where.add(field.name + " = ?", {*value});
    }
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return where;
}

std::map<std::string, std::string> Resource::sortColumns() const {
  std::map<std::string, std::string> columns = {{"created_at", "created_at"},
                                                {"updated_at", "updated_at"}};
  for (const ResourceField& field : spec_->fields) {
    if (field.sortable) columns[field.name] = sortExpression(field);
  }
  return columns;
}

std::string sortExpression(const ResourceField& field) {
  const bool nullable = !isNotNull(field);
  if (isTextKind(field.kind)) {
    return nullable ? "coalesce(lower(" + field.name + "), '')" : "lower(" + field.name + ")";
  }
  if (!nullable) return field.name;
  if (field.kind == FieldKind::Date) return "coalesce(" + field.name + ", '')";
  return "coalesce(" + field.name + ", -1)";  // Integer and Money (booleans are never null)
}

}  // namespace rapport
