#include "DealsQuery.h"

namespace deals {

using rapport::QueryKind;

const rapport::RecordQuery& dealsQuery() {
  // Sort expressions are those of the deals indexes (migrations/*/0004):
  // deals without an expected close date sort after every date, ascending.
  static const rapport::RecordQuery query({
      .recordType = "deal",
      .table = "deals",
      .fields = {{.name = "title", .column = "title", .nullable = false, .searchable = true},
                 {.name = "pipeline_id",
                  .column = "pipeline_id",
                  .kind = QueryKind::Id,
                  .nullable = false,
                  .reference = "pipeline"},
                 {.name = "stage_id",
                  .column = "stage_id",
                  .kind = QueryKind::Id,
                  .nullable = false,
                  .reference = "stage"},
                 {.name = "status",
                  .column = "status",
                  .kind = QueryKind::Enum,
                  .options = {"open", "won", "lost"},
                  .nullable = false},
                 {.name = "value", .column = "value", .kind = QueryKind::Number, .nullable = false},
                 {.name = "currency", .column = "currency", .nullable = false},
                 {.name = "contact_id",
                  .column = "contact_id",
                  .kind = QueryKind::Id,
                  .reference = "contact"},
                 {.name = "company_id",
                  .column = "crm_company_id",
                  .kind = QueryKind::Id,
                  .reference = "company"},
                 {.name = "owner_id", .column = "owner_id", .kind = QueryKind::Id},
                 {.name = "expected_close_date",
                  .column = "expected_close_date",
                  .kind = QueryKind::Date,
                  .sortExpression = "coalesce(expected_close_date, '9999-12-32')"},
                 {.name = "probability",
                  .column = "probability",
                  .kind = QueryKind::Number,
                  .nullable = false},
                 {.name = "tags", .column = "tags", .kind = QueryKind::Tags, .nullable = false},
                 {.name = "notes", .column = "notes"},
                 {.name = "won_at", .column = "won_at", .kind = QueryKind::Date},
                 {.name = "lost_at", .column = "lost_at", .kind = QueryKind::Date},
                 {.name = "lost_reason", .column = "lost_reason"}},
      .tagTable = "deal_tags",
      .tagRecordColumn = "deal_id",
      .searchTable = "deals_search",
      .countsTable = "deal_counts",
  });
  return query;
}

}  // namespace deals
