// One page of a tenant's list and its total (rapport/list.h).
#include "rapport/list.h"

#include <memory>
#include <string>
#include <vector>

#include "where_sql.h"

namespace rapport {

using detail::setMembers;

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

// The column a counted page carries its total in (taken off before the rows
// are returned).
constexpr std::string_view kTotalColumn = "rapport_list_total";

// `result` without its last column (every row's), on one shared list of names.
Result withoutLastColumn(const Result& result) {
  Result out;
  if (result.empty()) return out;
  const auto& names = *result.front().columnNames();
  auto kept = std::make_shared<const std::vector<std::string>>(names.begin(), names.end() - 1);
  out.rows.reserve(result.size());
  for (const Row& row : result) {
    std::vector<Value> values;
    values.reserve(kept->size());
    for (std::size_t i = 0; i < kept->size(); ++i) values.push_back(row.at(i));
    out.rows.emplace_back(kept, std::move(values));
  }
  return out;
}

// The statement of selectCountedPage. On SQLite the matches are sorted by
// their rowid and order only, and the page's rows read by rowid after the
// LIMIT: sorting every match's whole row (the window keeps each one) cost
// more than finding them. PostgreSQL sorts the whole rows (measured: no gain
// there).
std::string countedPageSql(std::string_view columns, std::string_view table,
                           const WhereClause& where, const Sort& sort) {
  const std::string records(table);
  const std::string order = orderByClause(sort);
  const bool sqlite = where.dialect() == Dialect::SQLite;
  const std::string page =
      "SELECT " + (sqlite ? std::string("rowid AS rapport_page_row") : std::string(columns)) +
      ", COUNT(*) OVER () AS " + std::string(kTotalColumn) + " FROM " + records + " WHERE " +
      where.sql() + " " + order + " LIMIT ? OFFSET ?";
  if (!sqlite) return page;
  return "SELECT " + std::string(columns) + ", page." + std::string(kTotalColumn) + " FROM (" +
         page + ") AS page JOIN " + records + " ON " + records + ".rowid = page.rapport_page_row " +
         order;
}

// The page of a narrowed list and its total in ONE statement. Its matches
// come from an index of their own (a full-text match, a set membership
// among other conditions) and the page's ORDER BY reads every one of them
// anyway, so COUNT(*) OVER () counts them in the same pass instead of a
// second statement running the index lookup (an FTS5 query, a trigram scan)
// again. An empty page past the first says nothing of the total: it is
// counted then.
ListPage selectCountedPage(Queryable& db, std::string_view columns, std::string_view table,
                           const WhereClause& where, const Sort& sort, const PageRequest& page,
                           std::string_view countsTable) {
  Params params = where.params();
  params.insert(params.end(), {page.perPage, page.offset()});
  const Result result = db.query(countedPageSql(columns, table, where, sort), params);
  ListPage out;
  if (result.empty()) {
    out.total = page.offset() == 0 ? 0 : countMatches(db, table, where, countsTable);
    return out;
  }
  out.total = result.front().i64(kTotalColumn);
  out.rows = withoutLastColumn(result);
  return out;
}

}  // namespace

std::int64_t countList(Queryable& db, std::string_view table, const WhereClause& where,
                       std::string_view countsTable) {
  return countMatches(db, table, where, countsTable);
}

ListPage selectPage(Queryable& db, std::string_view columns, std::string_view table,
                    const WhereClause& where, const Sort& sort, const PageRequest& page,
                    std::string_view countsTable) {
  const WhereClause::SetTable* set = where.soleSet();
  if (set == nullptr && where.narrowed()) {
    return selectCountedPage(db, columns, table, where, sort, page, countsTable);
  }
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

}  // namespace rapport
