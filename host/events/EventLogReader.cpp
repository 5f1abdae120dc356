#include "events/EventLogReader.h"

#include <algorithm>

namespace rapport::host {
namespace {

constexpr char kColumns[] =
    "SELECT sequence, id, type, module, request_id, data, created_at, actor_type, actor_id "
    "FROM events";

// One statement, the tenant first. `sequence > ?` with a cursor of at least
// 0 also leaves out PostgreSQL's rows still carrying their provisional
// negative number (numbered after their commit, EventNumbering.h): another
// transaction's events, not committed or not numbered yet.
Result selectEvents(Queryable& db, const std::string& companyId, const EventQuery& query) {
  std::string sql = std::string(kColumns) + " WHERE company_id = ? AND sequence > ?";
  Params params{companyId, std::max<std::int64_t>(query.afterSequence, 0)};
  if (query.since > 0) {
    sql += " AND created_at >= ?";
    params.emplace_back(query.since);
  }
  if (!query.types.empty()) {
    sql += " AND type IN (?";
    for (std::size_t i = 1; i < query.types.size(); ++i) sql += ", ?";
    sql += ")";
    for (const std::string& type : query.types) params.emplace_back(type);
  }
  const std::size_t limit = std::clamp<std::size_t>(query.limit, 1, EventLogReader::kMaxLimit);
  sql += " ORDER BY sequence LIMIT ?";
  params.emplace_back(static_cast<std::int64_t>(limit));
  return db.query(sql, params);
}

LoggedEvent loggedEvent(const Row& row, const std::string& companyId) {
  LoggedEvent logged;
  logged.sequence = row.i64("sequence");
  logged.event.id = row.str("id");
  logged.event.type = row.str("type");
  logged.event.module = row.str("module");
  logged.event.companyId = companyId;
  logged.event.requestId = row.str("request_id");
  logged.event.createdAt = row.i64("created_at");
  logged.event.data = Json::parse(row.str("data"));
  logged.event.actor = {row.str("actor_type"), row.isNull("actor_id") ? "" : row.str("actor_id")};
  return logged;
}

// Read after the page: a purge between the two statements then shows as
// truncated rather than as a silent gap.
bool truncated(Queryable& db, const std::string& companyId, const EventQuery& query) {
  const Result horizon =
      db.query("SELECT purged_through, purged_before FROM event_sequences WHERE company_id = ?",
               {companyId});
  if (horizon.empty()) return false;
  const Row& row = horizon.front();
  return query.afterSequence < row.i64("purged_through") ||
         (query.since > 0 && query.since < row.i64("purged_before"));
}

}  // namespace

EventPage EventLogReader::read(Queryable& db, const std::string& companyId,
                               const EventQuery& query) const {
  if (catchUp_) catchUp_();
  EventPage page;
  for (const Row& row : selectEvents(db, companyId, query)) {
    page.events.push_back(loggedEvent(row, companyId));
  }
  page.truncated = truncated(db, companyId, query);
  return page;
}

}  // namespace rapport::host
