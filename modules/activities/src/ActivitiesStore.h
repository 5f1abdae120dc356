// SQL of the activities module, and nothing else: every statement filters on
// the tenant (company_id). Tables: activities, activity_counts (the row count)
// and, on SQLite, activities_search (the full-text index); see migrations/
// and ActivitiesTables.h (the count table is the SDK's listing table).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "rapport/db.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/records.h"

namespace activities {

// The record an activity is related to: type "contact", "company" or "deal"
// and that record's id.
struct RelatedTo {
  std::string type;
  std::string id;
  bool operator==(const RelatedTo&) const = default;
};

// The fields of an activity a POST sets and a PATCH merges into (status and
// completed_at change only through complete and reopen).
struct Activity {
  std::string type;
  std::string title;
  std::optional<std::string> description;
  std::optional<std::int64_t> scheduledAt;  // microseconds since the epoch, UTC
  std::optional<std::int64_t> durationMinutes;
  std::optional<std::string> ownerId;
  std::optional<RelatedTo> relatedTo;
  bool operator==(const Activity&) const = default;
};

// Filters of the list; they combine with AND. Values are trimmed, non-blank.
struct ActivityFilter {
  std::optional<std::string> search;  // substring of title or description, any case
  std::optional<std::string> type;
  std::optional<std::string> status;
  std::optional<std::string> ownerId;
  std::optional<std::string> relatedType;
  std::optional<std::string> relatedId;       // only with relatedType
  std::optional<std::int64_t> scheduledFrom;  // inclusive, microseconds
  std::optional<std::int64_t> scheduledTo;    // inclusive, microseconds
};

namespace store {

// The columns every read returns, in the order the JSON shows them.
const std::string& columns();
// The scheduled_at sort key (the activities_scheduled index's expression):
// an unscheduled activity sorts after every scheduled one, ascending.
const std::string& scheduledSortKey();
// The list's own parameters as the WHERE clause the record query engine
// adds the request's filter to.
rapport::WhereClause whereOf(rapport::Dialect dialect, const std::string& tenant,
                             const ActivityFilter& filter);

// The activity's row, or nullopt when `id` is not an activity of `tenant`.
// With RecordLock::Share (the record directory's fetch for a reference about
// to be written) the row is key-share-locked on PostgreSQL in the same read.
std::optional<rapport::Row> find(rapport::Queryable& db, const std::string& tenant,
                                 const std::string& id,
                                 rapport::RecordLock lock = rapport::RecordLock::None);
// The same inside a write transaction, locking the row until commit
// (SELECT ... FOR UPDATE on PostgreSQL; on SQLite the transaction already
// holds the write lock).
std::optional<rapport::Row> findForUpdate(rapport::Tx& tx, const std::string& id);
// True when `id` is an activity of `tenant`: the record directory's check of
// "activity" (RecordLock::Share key-share-locks the row on PostgreSQL).
bool exists(rapport::Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock = rapport::RecordLock::None);
// The fields of a row returned by find().
Activity fromRow(const rapport::Row& row);
// True when the row's status is completed.
bool isCompleted(const rapport::Row& row);

// Writes a new activity, status pending.
void insert(rapport::Tx& tx, const std::string& id, const Activity& activity, std::int64_t now);
// Rewrites the fields of Activity and updated_at.
void update(rapport::Tx& tx, const std::string& id, const Activity& activity, std::int64_t now);
// pending -> completed (completed_at = now) or completed -> pending
// (completed_at cleared); updated_at = now.
void setCompleted(rapport::Tx& tx, const std::string& id, bool completed, std::int64_t now);
// False when there was no such activity.
bool remove(rapport::Tx& tx, const std::string& id);
// Clears related_to from the tenant's activities related to (type, id): the
// reaction to that record's deletion. updated_at moves.
void unlink(rapport::Tx& tx, const std::string& type, const std::string& id, std::int64_t now);

}  // namespace store
}  // namespace activities
