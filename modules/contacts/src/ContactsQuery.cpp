#include "ContactsQuery.h"

namespace contacts {

using rapport::QueryKind;

const rapport::RecordQuery& contactsQuery() {
  // Sort expressions are those of the contacts indexes (migrations/*/0001):
  // e-mails are stored lower-cased, so coalesce(email, '') orders them
  // without regard to case.
  static const rapport::RecordQuery query({
      .recordType = "contact",
      .table = "contacts",
      .fields = {{.name = "name", .column = "name", .nullable = false, .searchable = true},
                 {.name = "email",
                  .column = "email",
                  .sortExpression = "coalesce(email, '')",
                  .searchable = true},
                 {.name = "phone", .column = "phone", .searchable = true},
                 {.name = "job_title", .column = "job_title"},
                 {.name = "company_id",
                  .column = "crm_company_id",
                  .kind = QueryKind::Id,
                  .reference = "company"},
                 {.name = "owner_id", .column = "owner_id", .kind = QueryKind::Id},
                 {.name = "tags", .column = "tags", .kind = QueryKind::Tags, .nullable = false},
                 {.name = "notes", .column = "notes"}},
      .tagTable = "contact_tags",
      .tagRecordColumn = "contact_id",
      .searchTable = "contacts_search",
      .countsTable = "contact_counts",
  });
  return query;
}

}  // namespace contacts
