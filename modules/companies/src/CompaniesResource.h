// The CRM company as a declaration of the record engine (rapport/resource.h):
// what it stores, how clients query it and what it answers. The module
// installs it; the tests build its schema from it.
#pragma once

#include <vector>

#include "rapport/db.h"
#include "rapport/resource.h"

namespace companies {

// The declaration (docs/modules/companies.md lists the fields and rules).
rapport::ResourceSpec companiesSpec();

// The module's migrations: the engine's, which stands for the hand-written
// ones the module shipped up to SDK 7 (0005_companies,
// 0006_crm_company_listing, 0007_crm_companies_industry_eq).
std::vector<rapport::Migration> migrations();

}  // namespace companies
