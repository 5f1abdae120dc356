// The record query engine's entry points (rapport/record_query.h): reading
// a list request, and answering it as a numbered page or a keyset page.
#include "rapport/record_query.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "compiled.h"
#include "cursor.h"
#include "rapport/error.h"
#include "rapport/list.h"
#include "rapport/module.h"
#include "rapport/records.h"

namespace rapport {
namespace {

using query::Compiled;

// "a,b,c" -> {"a", "b", "c"}; an empty element stays, and is refused as an
// unknown name by the part that reads the list.
std::vector<std::string> commaList(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// A list member of a search body: an array of strings or a comma list.
std::vector<std::string> listMember(const Json& body, const char* name, FieldErrors& errors) {
  const Json* value = body.find(name);
  if (!value || value->isNull()) return {};
  if (value->isString()) return commaList(value->asString());
  std::vector<std::string> out;
  if (value->isArray()) {
    for (const Json& item : value->asArray()) {
      if (!item.isString() || item.asString().empty()) break;
      out.push_back(item.asString());
    }
    if (out.size() == value->size()) return out;
  }
  errors[name].push_back(std::string("The ") + name + " must be an array of names.");
  return {};
}

const char* const kLimitMessage = "The limit must be an integer between 1 and 100.";

std::optional<std::int64_t> parseLimit(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > query::kMaxLimit) {
    return std::nullopt;
  }
  return value;
}

Json parseFilterText(const std::string& text, FieldErrors& errors) {
  try {
    Json filter = Json::parse(text);
    if (filter.isObject()) return filter;
  } catch (const JsonParseError&) {
  }
  errors["filter"].push_back("The filter must be a JSON object.");
  return nullptr;
}

// The keys of the order: the first key, then the others.
std::vector<SortKey> keysOf(const Sort& sort) {
  std::vector<SortKey> keys{{sort.column, sort.descending}};
  keys.insert(keys.end(), sort.then.begin(), sort.then.end());
  return keys;
}

// The rows after `after` in the order of `keys` then id (in the last key's
// direction), as SQL with its values. One direction: a row value, which
// both engines compare on an index; mixed: one branch per key (GitLab's
// rule). The keys are NOT NULL, so no NULL branch is needed.
std::pair<std::string, Params> keysetCondition(const std::vector<SortKey>& keys,
                                               const query::CursorKey& after) {
  const bool lastDescending = keys.back().descending;
  std::vector<SortKey> all = keys;
  all.push_back({"id", lastDescending});
  std::vector<Value> values = after.values;
  values.emplace_back(after.id);
  const bool oneDirection = std::all_of(
      all.begin(), all.end(), [&](const SortKey& k) { return k.descending == lastDescending; });
  // The first key's bound, implied by the rest, leads: SQLite seeks an
  // expression index (lower(name)) on it, which it does not on a row value.
  Params params{values.front()};
  const std::string lead = all.front().column + (all.front().descending ? " <= ?" : " >= ?");
  if (oneDirection) {
    std::string left = "(", right = "(";
    for (std::size_t i = 0; i < all.size(); ++i) {
      left += (i ? ", " : "") + all[i].column;
      right += i ? ", ?" : "?";
    }
    params.insert(params.end(), values.begin(), values.end());
    return {lead + " AND " + left + ") " + (lastDescending ? "<" : ">") + " " + right + ")",
            params};
  }
  std::string sql = lead + " AND (";
  for (std::size_t i = 0; i < all.size(); ++i) {
    sql += i ? " OR (" : "(";
    for (std::size_t j = 0; j < i; ++j) {
      sql += all[j].column + " = ? AND ";
      params.push_back(values[j]);
    }
    sql += all[i].column + (all[i].descending ? " < ?" : " > ?") + ")";
    params.push_back(values[i]);
  }
  return {sql + ")", params};
}

// The column names the keyset page selects its sort values as.
std::string keyColumn(std::size_t i) {
  return "rapport_key_" + std::to_string(i);
}

// A member of a record's JSON by a dotted path ("related_to.type"); null when absent.
const Json* memberAt(const Json& record, const std::string& path) {
  const Json* at = &record;
  std::size_t start = 0;
  while (at && at->isObject()) {
    const std::size_t dot = path.find('.', start);
    at = at->find(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
  return nullptr;
}

// `fields` and `include` checked against the declaration before any work.
void checkOutputs(const Compiled& self, const RecordDirectory& records, const ListRequest& list) {
  FieldErrors errors;
  for (const std::string& name : list.fields) {
    if (!self.outputs.contains(name)) {
      errors["fields"].push_back("The field " + name + " is not a field of this record.");
    }
  }
  for (const std::string& name : list.include) {
    const auto hop = self.byHop.find(name);
    const bool known = hop != self.byHop.end() ? records.query(hop->second->reference) != nullptr
                                               : self.polymorphic.contains(name);
    if (!known) errors["include"].push_back("The reference " + name + " cannot be included.");
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
}

// Each record gets the referenced record `name` as its owner's GET shows it
// (fetched once per distinct id, with the augments other modules add, such
// as a stage's deal counters), or null.
void embed(const Compiled& self, const RecordDirectory& records, Queryable& db,
           const std::string& tenant, const std::string& name, Json::Array& out) {
  using Target = std::pair<std::string, std::string>;  // type, id
  std::vector<std::optional<Target>> targets;
  targets.reserve(out.size());
  for (const Json& record : out) {
    const Json* type = nullptr;
    const Json* id = nullptr;
    std::string fixedType;
    if (const auto hop = self.byHop.find(name); hop != self.byHop.end()) {
      fixedType = hop->second->reference;
      id = memberAt(record, hop->second->name);
    } else {
      const QueryInclude& include = *self.polymorphic.at(name);
      type = memberAt(record, include.typeField);
      id = memberAt(record, include.idField);
    }
    const bool typed = !fixedType.empty() || (type && type->isString());
    if (typed && id && id->isString()) {
      targets.emplace_back(
          Target{fixedType.empty() ? type->asString() : fixedType, id->asString()});
    } else {
      targets.emplace_back();
    }
  }
  // Fetched per type, then augmented per type in one call each.
  std::map<std::string, std::vector<std::string>> idsByType;
  for (const auto& target : targets) {
    if (!target || !records.knows(target->first)) continue;
    auto& ids = idsByType[target->first];
    if (std::find(ids.begin(), ids.end(), target->second) == ids.end()) {
      ids.push_back(target->second);
    }
  }
  std::map<Target, Json> found;
  for (const auto& [type, ids] : idsByType) {
    Json::Array fetched;
    std::vector<std::string> fetchedIds;
    for (const std::string& id : ids) {
      if (auto record = records.fetch(db, tenant, type, id, RecordLock::None)) {
        fetched.push_back(std::move(*record));
        fetchedIds.push_back(id);
      }
    }
    records.augment(db, tenant, type, fetched);
    for (std::size_t i = 0; i < fetched.size(); ++i) {
      found[{type, fetchedIds[i]}] = std::move(fetched[i]);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto it = targets[i] ? found.find(*targets[i]) : found.end();
    out[i].set(name, it != found.end() ? it->second : Json());
  }
}

// Only `fields`, id and the included references.
void project(const ListRequest& list, Json::Array& out) {
  if (list.fields.empty()) return;
  std::set<std::string> kept(list.fields.begin(), list.fields.end());
  kept.insert("id");
  kept.insert(list.include.begin(), list.include.end());
  for (Json& record : out) {
    Json::Object shaped;
    for (auto& member : record.asObject()) {
      if (kept.contains(member.first)) shaped.push_back(std::move(member));
    }
    record = Json(std::move(shaped));
  }
}

// A list's own statements (the page, the count) through
// Database::queryBounded: a filter or sort no index serves stops at the
// operator's deadline (503 with Retry-After) instead of holding a worker.
class BoundedReads final : public Queryable {
 public:
  explicit BoundedReads(Database& db) : db_(db) {}
  Dialect dialect() const override { return db_.dialect(); }
  Result query(std::string_view sql, const Params& params) override {
    return db_.queryBounded(sql, params);
  }
  std::int64_t exec(std::string_view sql, const Params& params) override {
    return db_.exec(sql, params);
  }

 private:
  Database& db_;
};

// The records of a list, as the API document describes them: the record's
// schema, or (with fields=) an object holding at least its id.
Json listedRecords(Json data) {
  if (Json* items = data.find("items")) {
    *items = schema::anyOf(
        {std::move(*items),
         schema::object({{"id", schema::string()}}, {"id"},
                        "The record with only the fields asked for (fields=) and its id.")});
  }
  return data;
}

}  // namespace

RecordQuery::RecordQuery(RecordSchema schema) : compiled_(query::compile(std::move(schema))) {}

const RecordSchema& RecordQuery::schema() const {
  return query::Access::of(*this).schema;
}

ListRequest RecordQuery::read(const Request& request) const {
  ListRequest list;
  FieldErrors errors;
  if (auto text = request.queryParam("filter")) list.filter = parseFilterText(*text, errors);
  if (auto text = request.queryParam("sort")) list.sort = commaList(*text);
  if (auto text = request.queryParam("fields")) list.fields = commaList(*text);
  if (auto text = request.queryParam("include")) {
    list.include = commaList(*text);
  }
  if (auto text = request.queryParam("limit")) {
    list.cursorMode = true;
    if (auto limit = parseLimit(*text)) {
      list.limit = *limit;
    } else {
      errors["limit"].push_back(kLimitMessage);
    }
  }
  if (auto text = request.queryParam("cursor")) {
    list.cursorMode = true;
    list.cursor = *text;
    if (text->empty()) errors["cursor"].push_back("The cursor is not valid for this list.");
  }
  if (auto text = request.queryParam("count")) {
    if (*text != "true" && *text != "false") {
      errors["count"].push_back("The count must be true or false.");
    }
    list.count = *text == "true";
  }
  try {
    list.page = parsePage(request);
  } catch (const Error& error) {  // page and per_page named with the others
    for (const auto& [field, messages] : error.errors()) errors[field] = messages;
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return list;
}

ListRequest RecordQuery::readBody(const Json& body) const {
  ListRequest list;
  list.cursorMode = true;
  FieldErrors errors;
  if (const Json* filter = body.find("filter"); filter && !filter->isNull()) {
    if (filter->isObject()) {
      list.filter = *filter;
    } else {
      errors["filter"].push_back("The filter must be a JSON object.");
    }
  }
  list.sort = listMember(body, "sort", errors);
  list.fields = listMember(body, "fields", errors);
  list.include = listMember(body, "include", errors);
  if (const Json* limit = body.find("limit"); limit && !limit->isNull()) {
    if (limit->isInt() && limit->asInt() >= 1 && limit->asInt() <= query::kMaxLimit) {
      list.limit = limit->asInt();
    } else {
      errors["limit"].push_back(kLimitMessage);
    }
  }
  if (const Json* cursor = body.find("cursor"); cursor && !cursor->isNull()) {
    if (cursor->isString() && !cursor->asString().empty()) {
      list.cursor = cursor->asString();
    } else {
      errors["cursor"].push_back("The cursor is not valid for this list.");
    }
  }
  if (const Json* count = body.find("count"); count && !count->isNull()) {
    if (count->isBool()) {
      list.count = count->asBool();
    } else {
      errors["count"].push_back("The count must be true or false.");
    }
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return list;
}

void RecordQuery::addFilter(WhereClause& where, const Json& filter,
                            const SchemaLookup& schemaOf) const {
  for (query::Condition& c : query::compileFilter(query::Access::of(*this), filter, where.dialect(),
                                                  where.tenant(), schemaOf)) {
    where.addBound(c.sql, c.params, c.narrowing);
  }
}

Sort RecordQuery::sortOf(const std::vector<std::string>& sort) const {
  return query::sortOf(query::Access::of(*this), sort);
}

Response RecordQuery::answer(Host& host, const ListRequest& list, WhereClause where,
                             const std::string& columns,
                             const std::function<Json(const Row&)>& toJson) const {
  const Compiled& self = query::Access::of(*this);
  const RecordDirectory& records = host.records();
  checkOutputs(self, records, list);
  addFilter(where, list.filter, [&](const std::string& type) { return records.query(type); });
  const Sort sort = sortOf(list.sort);
  Queryable& db = host.db();
  BoundedReads bounded(host.db());
  const auto shaped = [&](const Result& rows) {
    Json::Array out;
    out.reserve(rows.size());
    for (const Row& row : rows) out.push_back(toJson(row));
    records.augment(db, where.tenant(), self.schema.recordType, out);
    for (const std::string& name : list.include)
      embed(self, records, db, where.tenant(), name, out);
    project(list, out);
    return Json(std::move(out));
  };
  if (!list.cursorMode) {
    const ListPage found = selectPage(bounded, columns, self.schema.table, where, sort, list.page,
                                      self.schema.countsTable);
    return Response::list(shaped(found.rows), pageMeta(list.page, found.total));
  }

  // The keyset page: limit + 1 rows after the cursor's, with their sort
  // values, so the last one kept can start the next page.
  const std::vector<SortKey> keys = keysOf(sort);
  const std::string signature = query::listSignature(self.schema.recordType, where, sort);
  std::string sql = "SELECT " + columns;
  for (std::size_t i = 0; i < keys.size(); ++i)
    sql += ", " + keys[i].column + " AS " + keyColumn(i);
  sql += " FROM " + self.schema.table + " WHERE " + where.sql();
  Params params = where.params();
  if (!list.cursor.empty()) {
    const query::CursorKey after =
        query::openCursor(host.secrets(), signature, list.cursor, keys.size());
    auto [condition, values] = keysetCondition(keys, after);
    sql += " AND " + condition;
    params.insert(params.end(), values.begin(), values.end());
  }
  sql += " " + orderByClause(sort) + " LIMIT ?";
  params.emplace_back(static_cast<long long>(list.limit + 1));
  Result rows = bounded.query(sql, params);
  Json next;
  if (static_cast<std::int64_t>(rows.size()) > list.limit) {
    rows.rows.erase(rows.rows.begin() + list.limit, rows.rows.end());
    const Row& last = rows.rows.back();
    query::CursorKey key{.values = {}, .id = last.str("id")};
    for (std::size_t i = 0; i < keys.size(); ++i) key.values.push_back(last[keyColumn(i)]);
    next = query::sealCursor(host.secrets(), signature, key);
  }
  Json meta = Json::object(
      {{"per_page", Json(static_cast<long long>(list.limit))}, {"next_cursor", std::move(next)}});
  if (list.count) {
    meta.set("total", Json(static_cast<long long>(
                          countList(bounded, self.schema.table, where, self.schema.countsTable))));
  }
  return Response::list(shaped(rows), std::move(meta));
}

Response RecordQuery::search(Host& host, const Request& request, const std::string& columns,
                             const std::function<Json(const Row&)>& toJson) const {
  return answer(host, readBody(request.bodyObject()),
                WhereClause(host.db().dialect(), request.identity.companyId), columns, toJson);
}

Json RecordQuery::queryDoc(std::vector<std::pair<std::string, Json>> extra) const {
  const Compiled& self = query::Access::of(*this);
  std::string sortable, includes;
  for (const QueryField& f : self.schema.fields) {
    if (f.sortable) sortable += (sortable.empty() ? "" : ", ") + f.name;
    if (!f.hop.empty()) includes += (includes.empty() ? "" : ", ") + f.hop;
  }
  for (const QueryInclude& include : self.schema.includes) {
    includes += (includes.empty() ? "" : ", ") + include.name;
  }
  schema::Properties properties = {
      {"page",
       schema::integer("1 or more; default 1. Ignored with limit or cursor.").set("minimum", 1)},
      {"per_page", schema::integerBetween(1, 100, "Default 20.")},
      {"sort", schema::string("Up to 3 comma-separated fields, each with - for descending "
                              "(ties break on id). Sortable: " +
                              sortable + ". Default " + self.schema.defaultSort + ".")},
      {"filter", schema::string("A JSON filter object, URL-encoded (docs/api-choices.md, "
                                "\"Querying lists\"); 422 on filter.<path>.")},
      {"fields", schema::string("Comma-separated fields to return (id is always returned).")},
      {"include", schema::string("Comma-separated references to embed: " +
                                 (includes.empty() ? std::string("none") : includes) + ".")},
      {"limit", schema::integerBetween(1, 100, "Cursor paging: records per page (default 20).")},
      {"cursor", schema::string("Cursor paging: meta.next_cursor of the previous page.")},
      {"count", schema::enumOf({"true", "false"}, "Cursor paging: true adds meta.total.")}};
  for (auto& property : extra) properties.push_back(std::move(property));
  return schema::object(std::move(properties));
}

Json RecordQuery::searchBodyDoc() const {
  const Json names = schema::anyOf({schema::arrayOf(schema::string()), schema::string()});
  return schema::object(
      {{"filter", schema::anyObject("The filter, as the list's filter parameter.")},
       {"sort", schema::anyOf({schema::string(), schema::arrayOf(schema::string())})},
       {"fields", names},
       {"include", names},
       {"limit", schema::integerBetween(1, 100, "Default 20.")},
       {"cursor", schema::string("meta.next_cursor of the previous page.")},
       {"count", schema::boolean("true adds meta.total.")}});
}

Json RecordQuery::cursorMetaDoc() {
  return schema::object(
      {{"per_page", schema::integer()},
       {"next_cursor",
        schema::nullable(schema::string("The next page's cursor; null on the last page."))},
       {"total", schema::integer("With count=true.")}},
      {"per_page", "next_cursor"});
}

void RecordQuery::describeList(Registry& registry, const std::string& path, RouteDoc doc) const {
  schema::Properties extra;
  if (doc.query.isObject()) {
    if (const Json* properties = doc.query.find("properties")) {
      for (const auto& member : properties->asObject()) extra.push_back(member);
    }
  }
  doc.query = queryDoc(std::move(extra));
  doc.data = listedRecords(std::move(doc.data));
  doc.paged = true;
  registry.describe("GET", path, std::move(doc));
  registry.describeExtra("GET", path, {.meta = cursorMetaDoc(), .readsBearerToken = false});
}

void RecordQuery::describeSearch(Registry& registry, const std::string& listPath,
                                 const std::string& summary, Json record) const {
  const std::string path = listPath + "/search";
  registry.describe("POST", path,
                    {.summary = summary,
                     .description = "The list's filter, sort, fields, include and cursor paging "
                                    "in a JSON body, for filters too long for a URL.",
                     .body = searchBodyDoc(),
                     .data = listedRecords(schema::arrayOf(std::move(record)))});
  registry.describeExtra("POST", path, {.meta = cursorMetaDoc(), .readsBearerToken = false});
}

}  // namespace rapport
