#include "ActivitiesQuery.h"

#include "ActivitiesStore.h"

namespace activities {

using rapport::QueryKind;

const rapport::RecordQuery& activitiesQuery() {
  // related_to {type, id} is queried as related_to.type and related_to.id,
  // and embedded whole by include=related.
  static const rapport::RecordQuery query({
      .recordType = "activity",
      .table = "activities",
      .fields = {{.name = "type",
                  .column = "type",
                  .kind = QueryKind::Enum,
                  .options = {"call", "meeting", "email", "task", "note"},
                  .nullable = false},
                 {.name = "title", .column = "title", .nullable = false, .searchable = true},
                 {.name = "description", .column = "description", .searchable = true},
                 {.name = "status",
                  .column = "status",
                  .kind = QueryKind::Enum,
                  .options = {"pending", "completed"},
                  .nullable = false},
                 {.name = "scheduled_at",
                  .column = "scheduled_at",
                  .kind = QueryKind::DateTime,
                  .sortExpression = store::scheduledSortKey()},
                 {.name = "duration_minutes",
                  .column = "duration_minutes",
                  .kind = QueryKind::Number},
                 {.name = "owner_id", .column = "owner_id", .kind = QueryKind::Id},
                 {.name = "related_to.type",
                  .column = "related_type",
                  .kind = QueryKind::Enum,
                  .options = {"contact", "company", "deal"}},
                 {.name = "related_to.id", .column = "related_id", .kind = QueryKind::Id},
                 {.name = "completed_at", .column = "completed_at", .kind = QueryKind::DateTime}},
      .searchTable = "activities_search",
      .includes = {{.name = "related", .typeField = "related_to.type", .idField = "related_to.id"}},
      .countsTable = "activity_counts",
  });
  return query;
}

}  // namespace activities
