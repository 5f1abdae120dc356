// SQL of the activities module. Statements use "?" on both engines, with no
// dialect branch (row locks come from rapport::selectRecord, the search's
// branch from rapport::addTextSearch).
#include "ActivitiesStore.h"

#include "rapport/list.h"
#include "rapport/record_lookup.h"
#include "rapport/search.h"
#include "rapport/where.h"

namespace activities::store {
namespace {

using rapport::Dialect;
using rapport::Queryable;
using rapport::Tx;

// The columns every read returns, in the order ActivitiesJson shows them.
const std::string kColumns =
    "id, type, title, description, status, scheduled_at, duration_minutes, owner_id, "
    "related_type, related_id, completed_at, created_at, updated_at";

// The scheduled_at sort key: an unscheduled activity stands in as the largest
// BIGINT, so it sorts after every scheduled one (before them when
// descending) on both engines, and falls outside every scheduled_from /
// scheduled_to range. The index activities_scheduled is on this expression,
// written exactly the same.
const std::string kScheduledKey = "coalesce(scheduled_at, 9223372036854775807)";
constexpr std::int64_t kUnscheduled = 9223372036854775807;

const char* const kPending = "pending";
const char* const kCompleted = "completed";

}  // namespace

const std::string& columns() {
  return kColumns;
}

const std::string& scheduledSortKey() {
  return kScheduledKey;
}

// Every filter is served by an index led by company_id (docs/modules/activities.md):
// the search by the trigram index on search_text (rapport::addTextSearch), the
// scheduled range by activities_scheduled, the others by theirs.
rapport::WhereClause whereOf(Dialect dialect, const std::string& tenant,
                             const ActivityFilter& filter) {
  rapport::WhereClause where(dialect, tenant);
  if (filter.search) rapport::addTextSearch(where, "activities_search", *filter.search);
  if (filter.type) where.add("type = ?", {*filter.type});
  if (filter.status) where.add("status = ?", {*filter.status});
  if (filter.ownerId) where.add("owner_id = ?", {*filter.ownerId});
  if (filter.relatedType) where.add("related_type = ?", {*filter.relatedType});
  if (filter.relatedId) where.add("related_id = ?", {*filter.relatedId});
  if (filter.scheduledFrom || filter.scheduledTo) {
    // One range over the sort key; its upper bound stays below kUnscheduled,
    // so unscheduled activities never match.
    where.add(kScheduledKey + " BETWEEN ? AND ?", {filter.scheduledFrom.value_or(INT64_MIN),
                                                   filter.scheduledTo.value_or(kUnscheduled - 1)});
  }
  return where;
}

std::optional<rapport::Row> find(Queryable& db, const std::string& tenant, const std::string& id,
                                 rapport::RecordLock lock) {
  return rapport::selectRecord(db, kColumns, "activities", tenant, id, rapport::rowLockFor(lock));
}

std::optional<rapport::Row> findForUpdate(Tx& tx, const std::string& id) {
  return rapport::selectRecord(tx, kColumns, "activities", tx.companyId(), id,
                               rapport::RowLock::Update);
}

bool exists(Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock) {
  return rapport::selectRecord(db, "1", "activities", tenant, id, rapport::rowLockFor(lock))
      .has_value();
}

Activity fromRow(const rapport::Row& row) {
  Activity activity{.type = row.str("type"),
                    .title = row.str("title"),
                    .description = row.optStr("description"),
                    .scheduledAt = row.optI64("scheduled_at"),
                    .durationMinutes = row.optI64("duration_minutes"),
                    .ownerId = row.optStr("owner_id"),
                    .relatedTo = std::nullopt};
  if (!row.isNull("related_type")) {
    activity.relatedTo = RelatedTo{.type = row.str("related_type"), .id = row.str("related_id")};
  }
  return activity;
}

bool isCompleted(const rapport::Row& row) {
  return row.str("status") == kCompleted;
}

void insert(Tx& tx, const std::string& id, const Activity& a, std::int64_t now) {
  const std::optional<std::string> relatedType =
      a.relatedTo ? std::optional(a.relatedTo->type) : std::nullopt;
  const std::optional<std::string> relatedId =
      a.relatedTo ? std::optional(a.relatedTo->id) : std::nullopt;
  tx.exec(
      "INSERT INTO activities (id, company_id, type, title, description, status, scheduled_at, "
      "duration_minutes, owner_id, related_type, related_id, completed_at, created_at, "
      "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
      {id, tx.companyId(), a.type, a.title, a.description, kPending, a.scheduledAt,
       a.durationMinutes, a.ownerId, relatedType, relatedId, now, now});
}

void update(Tx& tx, const std::string& id, const Activity& a, std::int64_t now) {
  const std::optional<std::string> relatedType =
      a.relatedTo ? std::optional(a.relatedTo->type) : std::nullopt;
  const std::optional<std::string> relatedId =
      a.relatedTo ? std::optional(a.relatedTo->id) : std::nullopt;
  tx.exec(
      "UPDATE activities SET type = ?, title = ?, description = ?, scheduled_at = ?, "
      "duration_minutes = ?, owner_id = ?, related_type = ?, related_id = ?, updated_at = ? "
      "WHERE company_id = ? AND id = ?",
      {a.type, a.title, a.description, a.scheduledAt, a.durationMinutes, a.ownerId, relatedType,
       relatedId, now, tx.companyId(), id});
}

void setCompleted(Tx& tx, const std::string& id, bool completed, std::int64_t now) {
  const std::optional<std::int64_t> completedAt = completed ? std::optional(now) : std::nullopt;
  tx.exec(
      "UPDATE activities SET status = ?, completed_at = ?, updated_at = ? "
      "WHERE company_id = ? AND id = ?",
      {completed ? kCompleted : kPending, completedAt, now, tx.companyId(), id});
}

bool remove(Tx& tx, const std::string& id) {
  return tx.exec("DELETE FROM activities WHERE company_id = ? AND id = ?", {tx.companyId(), id}) >
         0;
}

void unlink(Tx& tx, const std::string& type, const std::string& id, std::int64_t now) {
  // Through activities_related (company_id, related_type, related_id, ...).
  tx.exec(
      "UPDATE activities SET related_type = NULL, related_id = NULL, updated_at = ? "
      "WHERE company_id = ? AND related_type = ? AND related_id = ?",
      {now, tx.companyId(), type, id});
}

}  // namespace activities::store
