// What the deals module stores: its own migrations (migrations/: the deals
// table and its indexes) and the listing tables the SDK generates from one
// declaration (rapport/listing_tables.h). Registered by the module's setup;
// also read by the tests that build its schema.
#pragma once

#include <vector>

#include "deals_migrations.gen.h"
#include "rapport/db.h"
#include "rapport/listing_tables.h"

namespace deals {

// The listing tables of deals: deal_counts (the row count), deal_tags and deal_tag_counts (the tag
// filter).
inline const rapport::ListingTables kListingTables{.records = "deals", .recordColumn = "deal_id"};

// The module's migrations (the host applies them in id order). The listing
// tables' migration replaces the hand-written ones that created the same
// tables before (Migration::replaces, rapport/db.h); the count slots'
// migration then replaces its PostgreSQL count functions (listing_tables.h).
inline std::vector<rapport::Migration> migrations() {
  std::vector<rapport::Migration> out = rapport_generated::deals::migrations();
  out.push_back(rapport::listingTablesMigration(kListingTables, "0005_deal_listing",
                                                {"0001_deals", "0002_deal_tag_counts"}));
  // Since SDK 10.1: the count slots chosen among the free ones.
  out.push_back(rapport::listingCountSlotsMigration(kListingTables, "0009_deal_count_slots"));
  return out;
}

}  // namespace deals
