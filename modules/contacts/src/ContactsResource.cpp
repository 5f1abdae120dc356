#include "ContactsResource.h"

namespace contacts {

using enum rapport::FieldKind;

rapport::ResourceSpec contactsSpec() {
  return {
      .path = "/crm/contacts",
      .table = "contacts",
      .recordType = "contact",
      .idPrefix = "cont_",
      .eventPrefix = "crm.contact",
      .noun = "Contact",
      .fields = {{.name = "name", .required = true, .searchable = true, .sortable = true},
                 // Lower-cased by its rule, so the unique index is case-insensitive;
                 // its sort needs no lower() (the unique index holds the column).
                 {.name = "email",
                  .kind = Email,
                  .unique = true,
                  .searchable = true,
                  .sortExpression = "coalesce(email, '')"},
                 {.name = "phone", .maxLength = 50, .searchable = true},
                 {.name = "job_title"},
                 // The CRM company (when the companies module is enabled) and the
                 // owner (a member) are set on create only. A deleted company
                 // leaves its contacts unlinked.
                 {.name = "company_id",
                  .kind = Reference,
                  .filterable = true,
                  .column = "crm_company_id",
                  .references = {{.recordType = "company",
                                  .notFound = "Company not found.",
                                  .module = "companies",
                                  .subList = "/crm/companies/{id}/contacts"}},
                  .access = rapport::FieldAccess::CreateOnly},
                 {.name = "owner_id",
                  .kind = Reference,
                  .filterable = true,
                  .references = {{.recordType = "user",
                                  .notFound = "Owner not found.",
                                  .unlinkOnDelete = false}},
                  .access = rapport::FieldAccess::CreateOnly},
                 {.name = "tags", .kind = Tags},
                 {.name = "notes", .maxLength = 10000}},
      .storage = {.migration = "0007_contacts",
                  .replaces = {"0005_contacts", "0006_contact_listing"},
                  .recordColumn = "contact_id"},
      .createDescription = "404 when the company_id or owner_id is not there.",
      .deleteDescription = "Deals and activities that referred to it are unlinked.",
      .customFields = {.migration = "0008_contacts_custom_fields"},
  };
}

std::vector<rapport::Migration> migrations() {
  return rapport::Resource(contactsSpec()).migrations();
}

}  // namespace contacts
