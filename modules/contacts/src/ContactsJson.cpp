#include "ContactsJson.h"

#include "rapport/time.h"

namespace contacts {

rapport::Json contactJson(const rapport::Row& row) {
  return rapport::Json::object({
      {"id", row.str("id")},
      {"name", row.str("name")},
      {"email", row["email"].toJson()},
      {"phone", row["phone"].toJson()},
      {"job_title", row["job_title"].toJson()},
      {"company_id", row["crm_company_id"].toJson()},
      {"owner_id", row["owner_id"].toJson()},
      {"tags", rapport::Json::parse(row.str("tags"))},
      {"notes", row["notes"].toJson()},
      {"created_at", rapport::isoTimestamp(row.i64("created_at"))},
      {"updated_at", rapport::isoTimestamp(row.i64("updated_at"))},
  });
}

}  // namespace contacts
