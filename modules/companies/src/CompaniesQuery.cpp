#include "CompaniesQuery.h"

namespace companies {

using rapport::QueryKind;

const rapport::RecordQuery& companiesQuery() {
  // Sort expressions are those of the crm_companies indexes (migrations/):
  // an unknown revenue sorts below zero.
  static const rapport::RecordQuery query({
      .recordType = "company",
      .table = "crm_companies",
      .fields = {{.name = "name", .column = "name", .nullable = false, .searchable = true},
                 {.name = "document", .column = "document", .searchable = true},
                 {.name = "industry", .column = "industry"},
                 {.name = "website", .column = "website", .searchable = true},
                 {.name = "size", .column = "size"},
                 {.name = "annual_revenue",
                  .column = "annual_revenue",
                  .kind = QueryKind::Number,
                  .sortExpression = "coalesce(annual_revenue, -1)"},
                 {.name = "phone", .column = "phone"},
                 {.name = "tags", .column = "tags", .kind = QueryKind::Tags, .nullable = false},
                 {.name = "notes", .column = "notes"}},
      .tagTable = "crm_company_tags",
      .tagRecordColumn = "crm_company_id",
      .searchTable = "crm_companies_search",
      .countsTable = "crm_company_counts",
  });
  return query;
}

}  // namespace companies
