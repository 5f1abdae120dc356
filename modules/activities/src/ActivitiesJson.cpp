#include "ActivitiesJson.h"

#include "rapport/time.h"

namespace activities {
namespace {

// An optional timestamp column: ISO-8601 UTC, or null.
rapport::Json timestampOrNull(const rapport::Row& row, const char* column) {
  const auto micros = row.optI64(column);
  return micros ? rapport::Json(rapport::isoTimestamp(*micros)) : rapport::Json();
}

rapport::Json durationOrNull(const rapport::Row& row) {
  const auto minutes = row.optI64("duration_minutes");
  return minutes ? rapport::Json(*minutes) : rapport::Json();
}

}  // namespace

rapport::Json activityJson(const rapport::Row& row) {
  rapport::Json relatedTo;  // null unless both columns are set
  if (!row.isNull("related_type")) {
    relatedTo =
        rapport::Json::object({{"type", row.str("related_type")}, {"id", row.str("related_id")}});
  }
  return rapport::Json::object({
      {"id", row.str("id")},
      {"type", row.str("type")},
      {"title", row.str("title")},
      {"description", row["description"].toJson()},
      {"status", row.str("status")},
      {"scheduled_at", timestampOrNull(row, "scheduled_at")},
      {"duration_minutes", durationOrNull(row)},
      {"owner_id", row["owner_id"].toJson()},
      {"related_to", std::move(relatedTo)},
      {"completed_at", timestampOrNull(row, "completed_at")},
      {"created_at", rapport::isoTimestamp(row.i64("created_at"))},
      {"updated_at", rapport::isoTimestamp(row.i64("updated_at"))},
  });
}

}  // namespace activities
