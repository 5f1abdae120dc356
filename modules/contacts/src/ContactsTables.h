// What the contacts module stores: its own migrations (migrations/: the contacts
// table and its indexes) and the listing tables the SDK generates from one
// declaration (rapport/listing_tables.h). Registered by the module's setup;
// also read by the tests that build its schema.
#pragma once

#include <vector>

#include "contacts_migrations.gen.h"
#include "rapport/db.h"
#include "rapport/listing_tables.h"

namespace contacts {

// The listing tables of contacts: contact_counts (the row count), contact_tags and
// contact_tag_counts (the tag filter).
inline const rapport::ListingTables kListingTables{.records = "contacts",
                                                   .recordColumn = "contact_id"};

// The module's migrations (the host applies them in id order). The listing
// tables' migration replaces the hand-written ones that created the same
// tables before (Migration::replaces, rapport/db.h).
inline std::vector<rapport::Migration> migrations() {
  std::vector<rapport::Migration> out = rapport_generated::contacts::migrations();
  out.push_back(
      rapport::listingTablesMigration(kListingTables, "0006_contact_listing",
                                      {"0001_contacts", "0002_contact_counts",
                                       "0003_contact_tags_order", "0004_contact_counts_slots"}));
  return out;
}

}  // namespace contacts
