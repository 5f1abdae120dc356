// The contacts routes for the API document; the fields and rules are those
// of ContactsJson, ContactsValidation and docs/modules/contacts.md.
#include "ContactsApiDoc.h"

#include "ContactsQuery.h"

#include "rapport/api_doc.h"

namespace contacts {
namespace {

namespace schema = rapport::schema;
using rapport::Json;

Json tags() {
  return schema::arrayOf(schema::text(50), "At most 50 tags; duplicates are dropped.");
}

Json contactSchema() {
  return schema::object(
      {{"id", schema::id("cont_")},
       {"name", schema::string()},
       {"email", schema::nullable(schema::email())},
       {"phone", schema::nullable(schema::string())},
       {"job_title", schema::nullable(schema::string())},
       {"company_id", schema::nullable(schema::id("comp_", "The CRM company (companies module)."))},
       {"owner_id", schema::nullable(schema::id("user_", "The member who owns the contact."))},
       {"tags", schema::arrayOf(schema::string())},
       {"notes", schema::nullable(schema::string())},
       {"created_at", schema::timestamp()},
       {"updated_at", schema::timestamp()}},
      {"id", "name", "email", "phone", "job_title", "company_id", "owner_id", "tags", "notes",
       "created_at", "updated_at"});
}

// A create or a PATCH: null clears an optional field; company_id and
// owner_id are set on create only (a PATCH may repeat the current value).
Json contactBody(bool creating) {
  return schema::object({{"name", schema::text(255)},
                         {"email", schema::nullable(schema::email())},
                         {"phone", schema::optionalText(50)},
                         {"job_title", schema::optionalText(255)},
                         {"company_id", schema::nullable(schema::string())},
                         {"owner_id", schema::nullable(schema::string())},
                         {"tags", schema::nullable(tags())},
                         {"notes", schema::optionalText(10000)}},
                        creating ? std::vector<std::string>{"name"} : std::vector<std::string>{});
}

// The list's own filters; contactsQuery().describeList adds the query
// language's parameters.
Json listQuery() {
  return schema::object(
      {{"search", schema::string("Words to find in the contact (at most 255 characters).")},
       {"tag", schema::string("Keeps contacts with this tag.")},
       {"company_id", schema::string("Keeps the contacts of this CRM company.")},
       {"owner_id", schema::string("Keeps the contacts of this owner.")}});
}

}  // namespace

void describeContactsRoutes(rapport::Registry& registry, bool companiesEnabled) {
  registry.schema("Contact", contactSchema());
  const Json contact = schema::ref("Contact");
  const rapport::RecordQuery& query = contactsQuery();
  query.describeList(
      registry, "/crm/contacts",
      {.summary = "List contacts", .query = listQuery(), .data = schema::arrayOf(contact)});
  query.describeSearch(registry, "/crm/contacts", "Search contacts", contact);
  registry.describe("POST", "/crm/contacts",
                    {.summary = "Create a contact",
                     .description = "Emits `crm.contact.created`. 404 when the company_id or "
                                    "owner_id names no record; 409 when the e-mail is taken.",
                     .body = contactBody(true),
                     .status = 201,
                     .data = contact,
                     .errors = {404, 409}});
  registry.describe("GET", "/crm/contacts/{id}", {.summary = "Get a contact", .data = contact});
  registry.describe("PATCH", "/crm/contacts/{id}",
                    {.summary = "Update a contact",
                     .description = "Emits `crm.contact.updated` when a field changed; 409 when "
                                    "the e-mail is taken.",
                     .body = contactBody(false),
                     .data = contact,
                     .errors = {409}});
  registry.describe("DELETE", "/crm/contacts/{id}",
                    {.summary = "Delete a contact",
                     .description = "Emits `crm.contact.deleted`; deals and activities that "
                                    "referred to it are unlinked.",
                     .data = schema::deleted("cont_")});
  if (companiesEnabled) {
    query.describeList(registry, "/crm/companies/{id}/contacts",
                       {.summary = "List the contacts of a CRM company",
                        .tag = "contacts",
                        .query = listQuery(),
                        .data = schema::arrayOf(contact)});
  }
}

}  // namespace contacts
