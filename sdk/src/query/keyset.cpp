// Keyset pages (keyset.h): limit + 1 rows after the cursor's, with their
// sort values, so the last one kept can start the next page.
#include "keyset.h"

#include <algorithm>
#include <optional>

#include "cursor.h"

namespace rapport::query {
namespace {

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

// The page of `limit` rows, and the cursor after its last row when there
// were more (the page was read with limit + 1).
KeysetPage finished(const SecretBox& box, const std::string& signature, std::size_t keys,
                    std::int64_t limit, KeysetPage page) {
  std::vector<Row>& rows = page.rows.rows;
  if (static_cast<std::int64_t>(rows.size()) > limit) {
    rows.erase(rows.begin() + limit, rows.end());
    CursorKey key{.values = {}, .id = rows.back().str("id")};
    for (std::size_t i = 0; i < keys; ++i) key.values.push_back(rows.back()[keyColumn(i)]);
    page.nextCursor = sealCursor(box, signature, key);
  }
  return page;
}

}  // namespace

bool denseRange(Queryable& db, const Compiled& self, const WhereClause& where) {
  Params params = where.params();
  params.emplace_back(static_cast<long long>(kDenseRange));
  return db.query("SELECT COUNT(*) AS n FROM (SELECT 1 FROM " + self.schema.table + " WHERE " +
                      where.sql() + " LIMIT ?) AS matches",
                  params)
             .front()
             .i64("n") >= kDenseRange;
}

namespace {

// One arm of a side-table sort (sidePage): its rows after `after` in the
// order of its two keys (a constant rank, and the value or the constant of
// a record without one), as the generic keyset would compare them.
std::string armSql(const std::string& select, const std::string& order,
                   const std::vector<SortKey>& armKeys, const CursorKey* after, Params& params) {
  std::string sql = select;
  if (after != nullptr) {
    auto [condition, values] = keysetCondition(armKeys, *after);
    sql += " AND " + condition;
    params.insert(params.end(), values.begin(), values.end());
  }
  return sql + " ORDER BY " + order;
}

// A one-field sort on a side-table field (sideRankOf): the records with a
// value, read in value order from the side table's index (its rows written
// first, which SQLite keeps as the outer loop), then those without one, by
// id. `pushed`: the list's conditions on the field, read with its rows; with
// one, no record without a value can match. Each arm stops after the page,
// and the second runs only when the first did not fill it (UNION ALL keeps
// its arms' order). The keys are those of the generic order, so cursors are
// the same.
Result sidePage(Queryable& db, const Compiled& self, const QueryField& field,
                const WhereClause& where, const std::vector<SortKey>& keys,
                const std::string& columns, std::int64_t limit, const CursorKey* after,
                const std::vector<const Condition*>& pushed) {
  const std::string& table = self.schema.table;
  const std::string dir = keys[1].descending ? " DESC" : " ASC";
  const Value pageRows(static_cast<long long>(limit + 1));
  // In the order of their "?": the pushed conditions, the list's others,
  // the cursor's bound and the arm's LIMIT; the list's conditions, the
  // cursor's bound and the LIMIT of the records without a value. (The field
  // id names the tenant's rows.)
  std::string rows = field.sideKey + " AND " + field.column + " IS NOT NULL";
  Params params;
  for (const Condition* c : pushed) {
    rows += " AND " + c->sideSql;
    params.insert(params.end(), c->sideParams.begin(), c->sideParams.end());
  }
  params.insert(params.end(), where.params().begin(), where.params().end());
  const std::string valued = armSql(
      "SELECT " + columns + ", 0 AS rapport_key_0, rapport_side.rapport_v AS rapport_key_1 FROM " +
          "(SELECT record_id AS rapport_rid, " + field.column + " AS rapport_v FROM " +
          field.sideTable + " WHERE " + rows + ") AS rapport_side CROSS JOIN " + table +
          " WHERE rapport_side.rapport_rid = " + table + ".id AND " + where.sql(),
      "rapport_side.rapport_v" + dir + ", " + table + ".id" + dir,
      {{"0", false}, {"rapport_side.rapport_v", keys[1].descending}}, after, params);
  params.push_back(pageRows);
  if (!pushed.empty()) return db.query(valued + " LIMIT ?", params);
  const std::string sentinel = sideSentinelOf(field);
  params.insert(params.end(), where.params().begin(), where.params().end());
  const std::string unset =
      armSql("SELECT " + columns + ", 1 AS rapport_key_0, " + sentinel + " AS rapport_key_1 FROM " +
                 table + " WHERE " + where.sql() + " AND NOT EXISTS (SELECT 1 FROM " +
                 field.sideTable + " WHERE " + field.sideKey + " AND record_id = " + table + ".id)",
             "id" + dir, {{"1", false}, {sentinel, keys[1].descending}}, after, params);
  params.push_back(pageRows);
  params.push_back(pageRows);
  return db.query("SELECT * FROM (" + valued +
                      " LIMIT ?) AS rapport_valued UNION ALL SELECT * FROM (" + unset +
                      " LIMIT ?) AS rapport_unset LIMIT ?",
                  params);
}

}  // namespace

KeysetPage keysetPage(Queryable& db, const SecretBox& box, const Compiled& self,
                      const WhereClause& list, const WhereClause& where, const Sort& sort,
                      const std::string& columns, std::int64_t limit, const std::string& cursor,
                      bool onePlan, const std::vector<const Condition*>& pushed) {
  const std::vector<SortKey> keys = keysOf(sort);
  const std::string signature = listSignature(self.schema.recordType, list, sort);
  const auto side = self.bySideRank.find(sort.column);
  if (side != self.bySideRank.end() && keys.size() == 2) {
    std::optional<CursorKey> after;
    if (!cursor.empty()) after = openCursor(box, signature, cursor, keys.size());
    KeysetPage page{.rows = sidePage(db, self, *side->second, where, keys, columns, limit,
                                     after ? &*after : nullptr, pushed),
                    .nextCursor = nullptr};
    return finished(box, signature, keys.size(), limit, std::move(page));
  }
  std::string sql = "SELECT " + columns;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    sql += ", " + keys[i].column + " AS " + keyColumn(i);
  }
  sql += " FROM " + self.schema.table + " WHERE " + where.sql();
  Params params = where.params();
  if (!cursor.empty()) {
    const CursorKey after = openCursor(box, signature, cursor, keys.size());
    auto [condition, values] = keysetCondition(keys, after);
    sql += " AND " + condition;
    params.insert(params.end(), values.begin(), values.end());
  }
  // PostgreSQL's plan_cache_mode = auto keeps a prepared statement's generic
  // plan once it costs no more than the custom plans of its first five runs,
  // and it prices a bound LIMIT as a tenth of the rows: with `LIMIT ?` every
  // list is planned again on each request (docs/performance.md, issue 22).
  // So a list whose best plan no value changes writes its LIMIT (the
  // engine's own integer, 2 to 101: request.cpp checks the limit) and is
  // planned once per session; any other keeps it bound, and its custom plan
  // follows its values (a rare tag read from the tag index, a common one by
  // walking the order's).
  sql += " " + orderByClause(sort);
  if (onePlan) {
    sql += " LIMIT " + std::to_string(limit + 1);
  } else {
    sql += " LIMIT ?";
    params.emplace_back(static_cast<long long>(limit + 1));
  }
  return finished(box, signature, keys.size(), limit,
                  {.rows = db.query(sql, params), .nextCursor = nullptr});
}

}  // namespace rapport::query
