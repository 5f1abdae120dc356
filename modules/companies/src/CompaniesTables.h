// What the companies module stores: its own migrations (migrations/: the crm_companies
// table and its indexes) and the listing tables the SDK generates from one
// declaration (rapport/listing_tables.h). Registered by the module's setup;
// also read by the tests that build its schema.
#pragma once

#include <vector>

#include "companies_migrations.gen.h"
#include "rapport/db.h"
#include "rapport/listing_tables.h"

namespace companies {

// The listing tables of crm_companies: crm_company_counts (the row count), crm_company_tags and
// crm_company_tag_counts (the tag filter).
inline const rapport::ListingTables kListingTables{.records = "crm_companies",
                                                   .recordColumn = "crm_company_id"};

// The module's migrations (the host applies them in id order). The listing
// tables' migration replaces the hand-written ones that created the same
// tables before (Migration::replaces, rapport/db.h).
inline std::vector<rapport::Migration> migrations() {
  std::vector<rapport::Migration> out = rapport_generated::companies::migrations();
  out.push_back(rapport::listingTablesMigration(
      kListingTables, "0006_crm_company_listing",
      {"0001_companies", "0002_crm_company_counts", "0003_crm_company_tags_order",
       "0004_crm_company_counts_slots"}));
  return out;
}

}  // namespace companies
