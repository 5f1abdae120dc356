#include "DealsJson.h"

#include "rapport/time.h"

namespace deals {

rapport::Json dealJson(const rapport::Row& row) {
  return rapport::Json::object({
      {"id", row.str("id")},
      {"title", row.str("title")},
      {"pipeline_id", row.str("pipeline_id")},
      {"stage_id", row.str("stage_id")},
      {"status", row.str("status")},
      {"value", row.i64("value")},
      {"currency", row.str("currency")},
      {"contact_id", row["contact_id"].toJson()},
      {"company_id", row["crm_company_id"].toJson()},
      {"owner_id", row["owner_id"].toJson()},
      {"expected_close_date", row["expected_close_date"].toJson()},
      {"probability", row.i64("probability")},
      {"tags", rapport::Json::parse(row.str("tags"))},
      {"notes", row["notes"].toJson()},
      {"won_at", row["won_at"].toJson()},
      {"lost_at", row["lost_at"].toJson()},
      {"lost_reason", row["lost_reason"].toJson()},
      {"created_at", rapport::isoTimestamp(row.i64("created_at"))},
      {"updated_at", rapport::isoTimestamp(row.i64("updated_at"))},
  });
}

}  // namespace deals
