#include "CompaniesJson.h"

#include "rapport/time.h"

namespace companies {

rapport::Json companyJson(const rapport::Row& row) {
  return rapport::Json::object({
      {"id", row.str("id")},
      {"name", row.str("name")},
      {"document", row["document"].toJson()},
      {"industry", row["industry"].toJson()},
      {"website", row["website"].toJson()},
      {"size", row["size"].toJson()},
      {"annual_revenue", row["annual_revenue"].toJson()},
      {"phone", row["phone"].toJson()},
      {"tags", rapport::Json::parse(row.str("tags"))},
      {"notes", row["notes"].toJson()},
      {"created_at", rapport::isoTimestamp(row.i64("created_at"))},
      {"updated_at", rapport::isoTimestamp(row.i64("updated_at"))},
  });
}

}  // namespace companies
