// The tables every listing module needs beside its record table, declared
// instead of written: the SDK generates their SQL for both engines.
//
//   constexpr rapport::TagTable kTags{"contact_tags", "contact_id", "contacts",
//                                     "contact_tag_counts"};                   // tags.h
//   const rapport::ListingTables kListing{.records = "contacts", .recordColumn = "contact_id"};
//   registry.migration(rapport::listingTablesMigration(kListing, "0006_contact_listing"));
//   registry.migration(rapport::listingCountSlotsMigration(kListing, "0007_contact_slots"));
//   ... selectPage(db, kColumns, "contacts", where, sort, page, "contact_counts");  // list.h
//
// From `recordColumn` "<record>_id" the names follow (contact_id: contact_counts,
// contact_tags, contact_tag_counts):
//   <record>_counts      (company_id TEXT, slot SMALLINT, total BIGINT,
//                         PRIMARY KEY (company_id, slot)): the exact number of
//                         each tenant's records, the sum of its slots; kept
//                         by AFTER INSERT / AFTER DELETE row triggers on the
//                         record table, for an unfiltered list's meta.total
//                         (selectPage's countsTable, list.h).
//   <record>_tags        (company_id TEXT, <record>_id TEXT, tag_lower TEXT,
//                         created_at BIGINT, PRIMARY KEY (<record>_id,
//                         tag_lower)) and its index <record>_tags_ordered
//                         (company_id, tag_lower, created_at, <record>_id):
//                         the tag filter and its default order (tags.h).
//   <record>_tag_counts  (company_id TEXT, tag_lower TEXT, slot SMALLINT,
//                         total BIGINT, PRIMARY KEY (company_id, tag_lower,
//                         slot)): the records per tag and tenant, kept by row
//                         triggers on <record>_tags; a slot row that comes
//                         back to 0 is removed.
// A count changes one slot per row written. On SQLite (one writer at a
// time) always slot 0. On PostgreSQL, with the functions <table>_track()
// as listingCountSlotsMigration (since 10.1) writes them: a writer takes one
// of the tenant's (for tag counts: the tenant's and tag's) slot rows that no
// other transaction holds (SELECT ... FOR UPDATE SKIP LOCKED; one it holds
// already counts as free to it) and adds to it; when every slot row is held
// (or there is none) it adds a row at slot pg_backend_pid() % 32768 (unique
// among the server's live processes), or at a random slot in 0..32767 when
// that row exists and is held; a collision of two new slots (rare) waits and
// still counts right. So concurrent writers of one tenant never queue on a
// count row, and a tenant holds about as many slot rows as it ever had
// concurrent writers (a transaction that writes many rows takes the first
// row it holds or that is free each time, so it may come to hold several).
// A slot may go below 0; the sum is exact. Count rows
// stay; a tag count's slot row that comes back to 0 is removed. The
// functions listingTablesMigration writes (its text never changes) take one
// of kPostgresqlCountSlots slots at random instead, so 32 writers of one
// tenant queued on 8 rows: register listingCountSlotsMigration after it.
// The triggers, functions (PostgreSQL: <table>_track()) and (SQLite:
// <table>_insert, <table>_delete) take the table's name.
//
// The record table must exist first (an earlier migration of the module) and
// have company_id TEXT, id TEXT and created_at BIGINT. The generated tables
// start empty: declare them in the module's first release, or replace the
// migrations that created them by hand (Migration::replaces, db.h).
//
// The generated SQL is part of the SDK's promise: it changes only with the
// ABI major (an applied migration is checksummed, and its text must not
// change under a module).
//
// Lifetime and threading: plain values and a free function without state.
#pragma once

#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/export.h"

namespace rapport {

// The number of random count slots per tenant (and tag) of the PostgreSQL
// functions listingTablesMigration writes (listingCountSlotsMigration
// replaces them with slots chosen among the free ones, above).
inline constexpr int kPostgresqlCountSlots = 8;

// A listing module's declaration: its record table and how the tag table
// names a record. Constructed by value by modules (its members are ABI).
struct ListingTables {
  std::string records;       // the record table: "contacts"
  std::string recordColumn;  // "<record>_id": "contact_id"; the names derive from it
  bool tags = true;          // false: only the counts table (a record without tags)

  // "<record>_counts": selectPage's countsTable.
  RAPPORT_SDK_API std::string countsTable() const;
  // "<record>_tags": TagTable::table (tags.h).
  RAPPORT_SDK_API std::string tagTable() const;
  // "<record>_tag_counts": TagTable::countsTable.
  RAPPORT_SDK_API std::string tagCountsTable() const;
};

// The migration `id` that creates `tables` on both engines (above), with
// `replaces` as Migration::replaces (the module's hand-written migrations it
// stands for, if any). Throws std::invalid_argument when a name is not a
// plain lower-case SQL identifier ([a-z_][a-z0-9_]*) or recordColumn does not
// end in "_id" (a module's mistake: its setup fails, naming it).
RAPPORT_SDK_API Migration listingTablesMigration(const ListingTables& tables, std::string id,
                                                 std::vector<std::string> replaces = {});

// Since 10.1: the migration `id` that replaces the PostgreSQL functions of
// listingTablesMigration's count triggers (<counts>_track() and, with tags,
// <tag_counts>_track()) by CREATE OR REPLACE FUNCTION with slots chosen among
// the free ones (above); the triggers, tables and rows stay. On SQLite a
// comment only (no statement: the ledger records it). Register it with an id
// after the listingTablesMigration's (a database that has the latter runs it
// once, whatever ids sort around it); rapport::Resource registers it by
// itself, as "<storage.migration>_count_slots". Throws as
// listingTablesMigration does.
RAPPORT_SDK_API Migration listingCountSlotsMigration(const ListingTables& tables, std::string id);

}  // namespace rapport
