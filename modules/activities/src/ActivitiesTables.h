// What the activities module stores: its own migrations (migrations/: the activities
// table and its indexes) and the listing tables the SDK generates from one
// declaration (rapport/listing_tables.h). Registered by the module's setup;
// also read by the tests that build its schema.
#pragma once

#include <vector>

#include "activities_migrations.gen.h"
#include "rapport/db.h"
#include "rapport/listing_tables.h"

namespace activities {

// The listing tables of activities: activity_counts (the row count).
inline const rapport::ListingTables kListingTables{
    .records = "activities", .recordColumn = "activity_id", .tags = false};

// The module's migrations (the host applies them in id order). The listing
// tables' migration replaces the hand-written ones that created the same
// tables before (Migration::replaces, rapport/db.h).
inline std::vector<rapport::Migration> migrations() {
  std::vector<rapport::Migration> out = rapport_generated::activities::migrations();
  out.push_back(rapport::listingTablesMigration(kListingTables, "0003_activity_listing",
                                                {"0001_activities"}));
  return out;
}

}  // namespace activities
