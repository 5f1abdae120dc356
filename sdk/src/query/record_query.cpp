// The record query engine's entry points (rapport/record_query.h): the
// declaration, the filter and the order, and a list answered as a numbered
// page or a keyset page. Reading a request is request.cpp's, the pages
// keyset.cpp's, the records' shape shape.cpp's, the API document doc.cpp's.
#include "rapport/record_query.h"

#include <algorithm>
#include <optional>

#include "compiled.h"
#include "keyset.h"
#include "rapport/list.h"
#include "rapport/module.h"
#include "rapport/records.h"
#include "rapport/scopes.h"
#include "shape.h"

namespace rapport {
namespace {

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

}  // namespace

RecordQuery::RecordQuery(RecordSchema schema) : compiled_(query::compile(std::move(schema))) {}

const RecordSchema& RecordQuery::schema() const {
  return query::Access::of(*this).schema;
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
  const query::Compiled& self = query::Access::of(*this);
  const RecordDirectory& records = host.records();
  // An API key reads other types through hops and includes only with their
  // read scope (scopes.h).
  const query::Readable readable = [&](const std::string& type) {
    if (!list.caller.isApiKey()) return;
    const std::string scope = records.scope(type);
    requireScope(list.caller, requiredScope(scope.empty() ? type : scope, "GET"));
  };
  query::checkOutputs(self, records, list, readable);
  const Sort sort = sortOf(list.sort);
  const std::vector<query::Condition> conditions = query::compileFilter(
      self, list.filter, where.dialect(), where.tenant(),
      [&](const std::string& type) {
        readable(type);
        return records.query(type);
      },
      &host.db());
  // On SQLite a keyset page may read a range through the order's index
  // instead (compiled.h, Condition::walkingSql): that second clause is only
  // built when the list has such a range.
  const auto walks = [&](const query::Condition& c) {
    return !c.walkingSql.empty() && c.rangeColumn != sort.column;
  };
  // A cursor list sorted by one side-table field reads its page from that
  // field's rows (keyset.cpp, sidePage): its conditions on the field go
  // there, the others stay on the records.
  const auto side = self.bySideRank.find(sort.column);
  const bool sideSort = list.cursorMode && side != self.bySideRank.end() && sort.then.size() == 1;
  std::optional<WhereClause> sideWhere;
  std::vector<const query::Condition*> pushed;
  if (sideSort) {
    sideWhere = where;
    for (const query::Condition& c : conditions) {
      if (c.sideField == side->second) {
        pushed.push_back(&c);
      } else {
        sideWhere->addBound(c.sql, c.params, c.narrowing);
      }
    }
  }
  std::optional<WhereClause> walking;
  if (!sideSort && list.cursorMode && std::any_of(conditions.begin(), conditions.end(), walks)) {
    walking = where;
    for (const query::Condition& c : conditions) {
      // A walking form walks the order's index: it never narrows.
      walking->addBound(walks(c) ? c.walkingSql : c.sql, c.params, !walks(c) && c.narrowing);
    }
  }
  // The module's own conditions (where, as handed in) are not the engine's
  // to judge: only a list of the engine's conditions may keep one plan.
  const bool onePlan = !where.filtered() && query::onePlanFits(conditions, sort);
  for (const query::Condition& c : conditions) where.addBound(c.sql, c.params, c.narrowing);
  Queryable& db = host.db();
  BoundedReads bounded(host.db());
  const auto shaped = [&](const Result& rows) {
    Json::Array out;
    out.reserve(rows.size());
    for (const Row& row : rows) out.push_back(toJson(row));
    records.augment(db, where.tenant(), self.schema.recordType, out);
    for (const std::string& name : list.include) {
      query::embed(self, records, db, where.tenant(), name, out, readable);
    }
    query::project(list, out);
    return Json(std::move(out));
  };
  if (!list.cursorMode) {
    const ListPage found = selectPage(bounded, columns, self.schema.table, where, sort, list.page,
                                      self.schema.countsTable);
    return Response::list(shaped(found.rows), pageMeta(list.page, found.total));
  }
  // Dense enough to walk: side-table conditions are counted on their own
  // rows (the list's count would first list every match, compiled.h).
  const bool sideOnly = std::all_of(conditions.begin(), conditions.end(), [&](const auto& c) {
    return !walks(c) || c.sideField != nullptr;
  });
  const bool walk =
      walking &&
      (sideOnly
           ? std::all_of(conditions.begin(), conditions.end(),
                         [&](const auto& c) { return !walks(c) || query::denseSide(bounded, c); })
           : query::denseRange(bounded, self, where));
  query::KeysetPage page = query::keysetPage(
      bounded, host.secrets(), self, where, sideSort ? *sideWhere : (walk ? *walking : where), sort,
      columns, list.limit, list.cursor, onePlan, pushed);
  Json meta = Json::object({{"per_page", Json(static_cast<long long>(list.limit))},
                            {"next_cursor", std::move(page.nextCursor)}});
  if (list.count) {
    meta.set("total", Json(static_cast<long long>(
                          countList(bounded, self.schema.table, where, self.schema.countsTable))));
  }
  return Response::list(shaped(page.rows), std::move(meta));
}

Response RecordQuery::search(Host& host, const Request& request, const std::string& columns,
                             const std::function<Json(const Row&)>& toJson) const {
  ListRequest list = readBody(request.bodyObject());
  list.caller = request.identity;
  return answer(host, list, WhereClause(host.db().dialect(), request.identity.companyId), columns,
                toJson);
}

}  // namespace rapport
