// The shared building blocks of record modules: lists, search, tags and the
// request rules they repeat (see rapport/query.h for the conventions).
#include "rapport/query.h"

#include <algorithm>

#include "rapport/json.h"

namespace rapport {
namespace {

// The tenant condition; `hideIndex` writes it "+company_id = ?", which keeps
// SQLite's planner (no statistics) from walking the tenant's index when
// another condition should drive. PostgreSQL needs no such hint.
std::string tenantEquals(Dialect dialect, bool hideIndex) {
  return hideIndex && dialect == Dialect::SQLite ? "+company_id = ?" : "company_id = ?";
}

// "SELECT <recordColumn> FROM <table> WHERE company_id = ? AND <key>": the
// set's members, bound by the tenant and the key values (setParams).
std::string setMembers(const WhereClause::SetTable& set) {
  return "SELECT " + set.recordColumn + " FROM " + set.table + " WHERE company_id = ? AND " +
         set.key;
}

}  // namespace

WhereClause::WhereClause(Dialect dialect, std::string tenant)
    : dialect_(dialect), tenant_(std::move(tenant)), params_{tenant_} {}

void WhereClause::add(std::string_view condition, std::initializer_list<Value> values) {
  conditions_ += " AND ";
  conditions_ += condition;
  params_.insert(params_.end(), values);
  soleSet_.reset();
}

void WhereClause::addSetMembership(SetTable set) {
  const bool alone = conditions_.empty();
  addNarrowing("id IN (" + setMembers(set) + ")");
  params_.push_back(tenant_);
  params_.insert(params_.end(), set.keyValues.begin(), set.keyValues.end());
  if (alone) soleSet_ = std::move(set);
}

void WhereClause::addNarrowing(std::string_view condition, std::initializer_list<Value> values) {
  add(condition, values);
  narrowed_ = true;
}

std::string WhereClause::tenantCondition() const {
  return tenantEquals(dialect_, narrowed_);
}

std::string WhereClause::sql() const {
  return tenantCondition() + conditions_;
}

namespace {

// The tenant and the set's key values: the parameters of "company_id = ? AND <key>".
Params setParams(const WhereClause& where, const WhereClause::SetTable& set) {
  Params params{where.tenant()};
  params.insert(params.end(), set.keyValues.begin(), set.keyValues.end());
  return params;
}

// "SELECT <columns> FROM <table> WHERE <where> ORDER BY ... LIMIT ? OFFSET ?".
Result selectRows(Queryable& db, std::string_view columns, std::string_view table,
                  const WhereClause& where, const Sort& sort, const PageRequest& page) {
  Params params = where.params();
  params.insert(params.end(), {page.perPage, page.offset()});
  return db.query("SELECT " + std::string(columns) + " FROM " + std::string(table) + " WHERE " +
                      where.sql() + " " + orderByClause(sort) + " LIMIT ? OFFSET ?",
                  params);
}

// The page of a list whose only condition is membership of `set`, in the
// created_at order: its ids come from the set table's index (walked in
// order, stopping after the page), then the page's rows by id. The clause is
// narrowed, so SQLite looks the few ids up rather than walking the tenant's
// rows.
Result selectSetPage(Queryable& db, std::string_view columns, std::string_view table,
                     const WhereClause& where, const WhereClause::SetTable& set, const Sort& sort,
                     const PageRequest& page) {
  const char* direction = sort.descending ? " DESC" : " ASC";
  Params params = where.params();
  params.insert(params.end(), {page.perPage, page.offset()});
  return db.query("SELECT " + std::string(columns) + " FROM " + std::string(table) + " WHERE " +
                      where.tenantCondition() + " AND id IN (" + setMembers(set) +
                      " ORDER BY created_at" + direction + ", " + set.recordColumn + direction +
                      " LIMIT ? OFFSET ?) " + orderByClause(sort),
                  params);
}

// The total a counts table holds for `condition`: the sum of its slots (0
// without a row). The cast keeps the type BIGINT on PostgreSQL, where SUM
// of a BIGINT is NUMERIC.
std::int64_t sumOfSlots(Queryable& db, std::string_view countsTable, const std::string& condition,
                        const Params& params) {
  return db
      .query("SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS total FROM " +
                 std::string(countsTable) + condition,
             params)
      .front()
      .i64("total");
}

// meta.total: from the counts table for an unfiltered list, from the set's
// counts table (or index) for a lone set membership, else by counting the
// matches.
std::int64_t countMatches(Queryable& db, std::string_view table, const WhereClause& where,
                          std::string_view countsTable) {
  if (!countsTable.empty() && !where.filtered()) {
    return sumOfSlots(db, countsTable, " WHERE company_id = ?", {where.tenant()});
  }
  if (const WhereClause::SetTable* set = where.soleSet()) {
    const std::string condition = " WHERE company_id = ? AND " + set->key;
    if (set->countsTable.empty()) {
      return db
          .query("SELECT COUNT(*) AS total FROM " + set->table + condition, setParams(where, *set))
          .front()
          .i64("total");
    }
    return sumOfSlots(db, set->countsTable, condition, setParams(where, *set));
  }
  return db
      .query("SELECT COUNT(*) AS total FROM " + std::string(table) + " WHERE " + where.sql(),
             where.params())
      .front()
      .i64("total");
}

}  // namespace

ListPage selectPage(Queryable& db, std::string_view columns, std::string_view table,
                    const WhereClause& where, const Sort& sort, const PageRequest& page,
                    std::string_view countsTable) {
  const WhereClause::SetTable* set = where.soleSet();
  ListPage out;
  out.rows = set != nullptr && sort.column == "created_at"
                 ? selectSetPage(db, columns, table, where, *set, sort, page)
                 : selectRows(db, columns, table, where, sort, page);
  out.total = countMatches(db, table, where, countsTable);
  return out;
}

Response listResponse(const ListPage& found, const PageRequest& page,
                      const std::function<Json(const Row&)>& toJson) {
  Json data = Json::array();
  for (const Row& row : found.rows) data.push(toJson(row));
  return Response::list(std::move(data), pageMeta(page, found.total));
}

std::string likeContains(std::string_view term) {
  std::string out = "%";
  for (char c : term) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

std::string ftsPhrase(std::string_view term) {
  std::string out = "\"";
  for (char c : term) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

void addTextSearch(WhereClause& where, std::string_view ftsTable, std::string_view term) {
  if (where.dialect() == Dialect::SQLite && utf8Length(term) >= kTrigramLength) {
    const std::string table(ftsTable);
    where.addNarrowing("seq IN (SELECT rowid FROM " + table + " WHERE " + table + " MATCH ?)",
                       {ftsPhrase(term)});
  } else {
    where.add("search_text LIKE lower(?) ESCAPE '\\'", {likeContains(term)});
  }
}

std::string tagsToJsonText(const std::vector<std::string>& tags) {
  Json array = Json::array();
  for (const std::string& tag : tags) array.push(tag);
  return array.dump();
}

std::vector<std::string> tagsFromJsonText(std::string_view text) {
  const Json array = Json::parse(text);  // named: it must outlive the loop
  std::vector<std::string> tags;
  for (const Json& tag : array.asArray()) tags.push_back(tag.asString());
  return tags;
}

void replaceTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId,
                    const std::vector<std::string>& tags) {
  deleteTagRows(tx, tagTable, recordId);
  const std::string insert = "INSERT INTO " + std::string(tagTable.table) + " (company_id, " +
                             std::string(tagTable.recordColumn) +
                             ", tag_lower, created_at) SELECT company_id, id, ?, created_at FROM " +
                             std::string(tagTable.recordTable) + " WHERE company_id = ? AND id = ?";
  // In one order everywhere: the rows' triggers lock the tenant's count row
  // of each tag, and two writers taking them in opposite orders would
  // deadlock on PostgreSQL.
  std::vector<std::string> lowered;
  lowered.reserve(tags.size());
  for (const std::string& tag : tags) lowered.push_back(toLower(tag));
  std::sort(lowered.begin(), lowered.end());
  for (const std::string& tag : lowered) tx.exec(insert, {tag, tx.companyId(), recordId});
}

void deleteTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId) {
  // The record's rows through the primary key (<recordColumn>, tag_lower).
  // SQLite, without statistics, would rather walk the tenant's part of the
  // tag index, all its tag rows, on every write (3.4 ms per create at 100k
  // contacts): the unary + hides that index from it.
  tx.exec("DELETE FROM " + std::string(tagTable.table) + " WHERE " +
              std::string(tagTable.recordColumn) + " = ? AND " + tenantEquals(tx.dialect(), true),
          {recordId, tx.companyId()});
}

void addTagFilter(WhereClause& where, const TagTable& tagTable, std::string_view tag) {
  where.addSetMembership({.table = std::string(tagTable.table),
                          .recordColumn = std::string(tagTable.recordColumn),
                          .key = "tag_lower = ?",
                          .keyValues = {toLower(tag)},
                          .countsTable = std::string(tagTable.countsTable)});
}

std::optional<std::string> filterParam(const Request& request, std::string_view name) {
  const auto text = request.queryParam(name);
  if (!text) return std::nullopt;
  std::string trimmed = trim(*text);
  if (trimmed.empty()) return std::nullopt;
  return trimmed;
}

std::optional<std::string> searchParam(const Request& request, FieldErrors& errors) {
  auto term = filterParam(request, "search");
  if (term && utf8Length(*term) > kMaxSearchLength) {
    errors["search"].push_back("The search may not be greater than " +
                               std::to_string(kMaxSearchLength) + " characters.");
  }
  return term;
}

Field<std::string> optionalText(Validator& validator, const std::string& field, std::size_t max) {
  Field<std::string> out = validator.string(field, {.required = false, .min = 0, .max = max});
  if (out.value && out.value->empty()) out.value.reset();
  return out;
}

void conflictOnDuplicate(const std::string& message, const std::function<void()>& write) {
  try {
    write();
  } catch (const DbError& error) {
    if (error.isUniqueViolation()) throw Error::conflict(message);
    throw;
  }
}

}  // namespace rapport
