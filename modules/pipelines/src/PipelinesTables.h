// What the pipelines module stores: its own migrations (migrations/: the pipelines
// table and its indexes) and the listing tables the SDK generates from one
// declaration (rapport/listing_tables.h). Registered by the module's setup;
// also read by the tests that build its schema.
#pragma once

#include <vector>

#include "pipelines_migrations.gen.h"
#include "rapport/db.h"
#include "rapport/listing_tables.h"

namespace pipelines {

// The listing tables of pipelines: pipeline_counts (the row count).
inline const rapport::ListingTables kListingTables{
    .records = "pipelines", .recordColumn = "pipeline_id", .tags = false};

// The module's migrations (the host applies them in id order). The listing
// tables' migration replaces the hand-written ones that created the same
// tables before (Migration::replaces, rapport/db.h); the count slots'
// migration then replaces its PostgreSQL count function (listing_tables.h).
inline std::vector<rapport::Migration> migrations() {
  std::vector<rapport::Migration> out = rapport_generated::pipelines::migrations();
  out.push_back(
      rapport::listingTablesMigration(kListingTables, "0003_pipeline_listing", {"0001_pipelines"}));
  // Since SDK 10.1: the count slots chosen among the free ones.
  out.push_back(rapport::listingCountSlotsMigration(kListingTables, "0004_pipeline_count_slots"));
  return out;
}

}  // namespace pipelines
