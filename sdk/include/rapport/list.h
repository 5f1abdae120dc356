// One page of a tenant's list: its rows, its total (meta.total) and the
// list answer.
//
//   rapport::WhereClause where(db.dialect(), tenant);            // where.h
//   rapport::ListPage found =
//       rapport::selectPage(db, kColumns, "contacts", where, sort, page, "contact_counts");
//   return rapport::listResponse(found, page, contactJson);
//
// The counts tables selectPage reads are the ones listing_tables.h declares.
//
// Identifiers passed here (columns, tables) are pasted into SQL: pass only
// the module's own constants, never input. Values are always bound.
//
// Lifetime and threading: free functions without state, and plain values.
// The Queryable is used as db.h says (on the thread, and inside the callback,
// that received it).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/json.h"
#include "rapport/pagination.h"
#include "rapport/where.h"

namespace rapport {

// One page of a list and the number of records matching it (meta.total).
struct ListPage {
  Result rows;
  std::int64_t total = 0;
};

// Runs "SELECT <columns> FROM <table> WHERE <where> ORDER BY ... LIMIT ? OFFSET ?"
// (orderByClause: ties break on id) and "SELECT COUNT(*) AS total FROM <table>
// WHERE <where>".
//
// countsTable, when given, names a table (company_id TEXT, slot SMALLINT,
// total BIGINT, PRIMARY KEY (company_id, slot)) whose totals add up to the
// exact number of each tenant's rows of `table`. AFTER INSERT / AFTER DELETE
// row triggers on `table` add 1 or -1 to one slot: on PostgreSQL one that no
// other transaction holds (listing_tables.h), so concurrent writers of one
// tenant do not wait for each other's count row; on SQLite (one writer)
// always slot 0. An unfiltered list
// (where.filtered() is false) reads its total as the sum of the tenant's
// slots, a few indexed rows, instead of counting all the tenant's rows: its
// cost stays flat however large the tenant grows. listing_tables.h declares
// that table and its triggers (ListingTables::countsTable()).
//
// A list whose only condition is a set membership (the tag filter) pages on
// the set table's index and reads its total from the set's counts table
// (WhereClause::addSetMembership). Other filtered lists count their matches:
// cost grows with the matches, not the table.
RAPPORT_SDK_API ListPage selectPage(Queryable& db, std::string_view columns, std::string_view table,
                                    const WhereClause& where, const Sort& sort,
                                    const PageRequest& page, std::string_view countsTable = {});

// Since 7.0. The number of records matching `where`, as selectPage counts
// meta.total: from the counts table for an unfiltered list, from the set's
// counts for a lone set membership, else by counting.
RAPPORT_SDK_API std::int64_t countList(Queryable& db, std::string_view table,
                                       const WhereClause& where, std::string_view countsTable = {});

// The list answer of a page: each row through `toJson` (the module's one
// JSON shape of its record) as data, and pageMeta(page, found.total) as meta.
RAPPORT_SDK_API Response listResponse(const ListPage& found, const PageRequest& page,
                                      const std::function<Json(const Row&)>& toJson);

}  // namespace rapport
