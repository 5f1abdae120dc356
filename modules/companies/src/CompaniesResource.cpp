#include "CompaniesResource.h"

namespace companies {

using enum rapport::FieldKind;

rapport::ResourceSpec companiesSpec() {
  return {
      .path = "/crm/companies",
      // crm_companies: "companies" holds the tenants (the host's accounts).
      .table = "crm_companies",
      .recordType = "company",
      .idPrefix = "comp_",
      .eventPrefix = "crm.company",
      .noun = "Company",
      .fields = {{.name = "name", .required = true, .searchable = true, .sortable = true},
                 {.name = "document",
                  .maxLength = 100,
                  .unique = true,
                  .searchable = true,
                  .description = "The company's tax id; unique in the tenant."},
                 // ?industry= and ?size= compare in any case (their historic
                 // meaning); the query language's filter on industry compares
                 // exactly, and the hop company.industry reads the same index.
                 {.name = "industry",
                  .maxLength = 100,
                  .filterable = true,
                  .anyCase = true,
                  .indexed = true},
                 {.name = "website", .searchable = true},
                 {.name = "size", .maxLength = 50, .filterable = true, .anyCase = true},
                 // An unknown revenue sorts below zero.
                 {.name = "annual_revenue",
                  .kind = Money,
                  .sortExpression = "coalesce(annual_revenue, -1)"},
                 {.name = "phone", .maxLength = 50},
                 {.name = "tags", .kind = Tags},
                 {.name = "notes", .maxLength = 10000}},
      .title = "CRM company",
      .titlePlural = "CRM companies",
      // "Company" is the account's company (the tenant).
      .schemaName = "CrmCompany",
      .storage = {.migration = "0008_crm_companies",
                  .replaces = {"0005_companies", "0006_crm_company_listing",
                               "0007_crm_companies_industry_eq"},
                  .recordColumn = "crm_company_id"},
      .deleteDescription = "Contacts, deals and activities that referred to it are unlinked.",
      .customFields = {.migration = "0009_crm_companies_custom_fields"},
  };
}

std::vector<rapport::Migration> migrations() {
  return rapport::Resource(companiesSpec()).migrations();
}

}  // namespace companies
