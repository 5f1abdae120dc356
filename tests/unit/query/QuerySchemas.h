// The record types unit.query and the filter fuzzer (fuzz/filter_fuzzer.cpp)
// query: companies, contacts and deals shaped like the modules' own
// declarations, with one field of each kind. SDK headers only, so the
// fuzzer's clang build includes it too.
#pragma once

#include "rapport/record_query.h"

namespace rapport::test::query {

using rapport::QueryKind;
using rapport::RecordSchema;

inline RecordSchema companiesSchema() {
  return {
      .recordType = "company",
      .table = "crm_companies",
      .fields = {{.name = "name", .column = "name", .nullable = false, .searchable = true},
                 {.name = "document", .column = "document"},
                 {.name = "industry", .column = "industry"},
                 {.name = "size",
                  .column = "size",
                  .kind = QueryKind::Enum,
                  .options = {"small", "medium", "large"}},
                 {.name = "annual_revenue", .column = "annual_revenue", .kind = QueryKind::Number},
                 {.name = "tags", .column = "tags", .kind = QueryKind::Tags, .sortable = false}},
      .tagTable = "crm_company_tags",
      .tagRecordColumn = "crm_company_id",
      .searchTable = "crm_companies_fts",
      .countsTable = "crm_company_counts"};
}

inline RecordSchema contactsSchema() {
  return {
      .recordType = "contact",
      .table = "contacts",
      .fields = {{.name = "name", .column = "name", .nullable = false, .searchable = true},
                 {.name = "email", .column = "email", .searchable = true},
                 {.name = "job_title", .column = "job_title"},
                 {.name = "company_id",
                  .column = "crm_company_id",
                  .kind = QueryKind::Id,
                  .reference = "company"},
                 {.name = "owner_id", .column = "owner_id", .kind = QueryKind::Id},
                 {.name = "tags", .column = "tags", .kind = QueryKind::Tags, .sortable = false}},
      .tagTable = "contact_tags",
      .tagRecordColumn = "contact_id",
      .searchTable = "contacts_fts",
      .countsTable = "contact_counts"};
}

inline RecordSchema dealsSchema() {
  return {
      .recordType = "deal",
      .table = "deals",
      .fields = {{.name = "title", .column = "title", .nullable = false, .searchable = true},
                 {.name = "status",
                  .column = "status",
                  .kind = QueryKind::Enum,
                  .options = {"open", "won", "lost"},
                  .nullable = false},
                 {.name = "value", .column = "value", .kind = QueryKind::Number, .nullable = false},
                 {.name = "probability", .column = "probability", .kind = QueryKind::Number},
                 {.name = "expected_close_date",
                  .column = "expected_close_date",
                  .kind = QueryKind::Date},
                 {.name = "won_at", .column = "won_at", .kind = QueryKind::Date},
                 {.name = "last_activity_at",
                  .column = "last_activity_at",
                  .kind = QueryKind::DateTime},
                 {.name = "archived", .column = "archived", .kind = QueryKind::Boolean},
                 {.name = "contact_id",
                  .column = "contact_id",
                  .kind = QueryKind::Id,
                  .reference = "contact"},
                 {.name = "company_id",
                  .column = "crm_company_id",
                  .kind = QueryKind::Id,
                  .reference = "company"},
                 {.name = "owner_id", .column = "owner_id", .kind = QueryKind::Id},
                 {.name = "tags", .column = "tags", .kind = QueryKind::Tags, .sortable = false}},
      .tagTable = "deal_tags",
      .tagRecordColumn = "deal_id",
      .searchTable = "deals_fts",
      .countsTable = "deal_counts"};
}

}  // namespace rapport::test::query
