// The CRM companies routes for the API document; the fields and rules are
// those of CompaniesJson, CompaniesValidation and docs/modules/companies.md.
#include "CompaniesApiDoc.h"

#include "CompaniesQuery.h"

#include "rapport/api_doc.h"

namespace companies {
namespace {

namespace schema = rapport::schema;
using rapport::Json;

// "CrmCompany": "Company" is the account's company (the tenant).
const char* const kSchema = "CrmCompany";

Json companySchema() {
  return schema::object(
      {{"id", schema::id("comp_")},
       {"name", schema::string()},
       {"document",
        schema::nullable(schema::string("The company's tax id; unique in the tenant."))},
       {"industry", schema::nullable(schema::string())},
       {"website", schema::nullable(schema::string())},
       {"size", schema::nullable(schema::string())},
       {"annual_revenue", schema::nullable(schema::money())},
       {"phone", schema::nullable(schema::string())},
       {"tags", schema::arrayOf(schema::string())},
       {"notes", schema::nullable(schema::string())},
       {"created_at", schema::timestamp()},
       {"updated_at", schema::timestamp()}},
      {"id", "name", "document", "industry", "website", "size", "annual_revenue", "phone", "tags",
       "notes", "created_at", "updated_at"});
}

// A create or a PATCH: null clears an optional field.
Json companyBody(bool creating) {
  return schema::object(
      {{"name", schema::text(255)},
       {"document", schema::optionalText(100)},
       {"industry", schema::optionalText(100)},
       {"website", schema::optionalText(255)},
       {"size", schema::optionalText(50)},
       {"annual_revenue", schema::nullable(schema::money())},
       {"phone", schema::optionalText(50)},
       {"tags", schema::nullable(schema::arrayOf(schema::text(50), "At most 50 tags."))},
       {"notes", schema::optionalText(10000)}},
      creating ? std::vector<std::string>{"name"} : std::vector<std::string>{});
}

Json listQuery() {
  return schema::object(
      {{"search", schema::string("Words to find in the company (at most 255 characters).")},
       {"tag", schema::string("Keeps companies with this tag.")},
       {"industry", schema::string("Keeps companies of this industry.")},
       {"size", schema::string("Keeps companies of this size.")}});
}

}  // namespace

void describeCompaniesRoutes(rapport::Registry& registry) {
  registry.schema(kSchema, companySchema());
  const Json company = schema::ref(kSchema);
  companiesQuery().describeList(
      registry, "/crm/companies",
      {.summary = "List CRM companies", .query = listQuery(), .data = schema::arrayOf(company)});
  companiesQuery().describeSearch(registry, "/crm/companies", "Search CRM companies", company);
  registry.describe("POST", "/crm/companies",
                    {.summary = "Create a CRM company",
                     .description = "Emits `crm.company.created`; 409 when the document is taken.",
                     .body = companyBody(true),
                     .status = 201,
                     .data = company,
                     .errors = {409}});
  registry.describe("GET", "/crm/companies/{id}",
                    {.summary = "Get a CRM company", .data = company});
  registry.describe("PATCH", "/crm/companies/{id}",
                    {.summary = "Update a CRM company",
                     .description = "Emits `crm.company.updated` when a field changed; 409 when "
                                    "the document is taken.",
                     .body = companyBody(false),
                     .data = company,
                     .errors = {409}});
  registry.describe("DELETE", "/crm/companies/{id}",
                    {.summary = "Delete a CRM company",
                     .description = "Emits `crm.company.deleted`; contacts, deals and activities "
                                    "that referred to it are unlinked.",
                     .data = schema::deleted("comp_")});
}

}  // namespace companies
