// A record's tags: stored as written in the record's `tags` column (a JSON
// array), and lower-cased in a tag table that serves the tag filter.
//
//   constexpr rapport::TagTable kTags{"contact_tags", "contact_id", "contacts",
//                                     "contact_tag_counts"};
//   rapport::replaceTagRows(tx, kTags, id, tags);          // after writing the record
//   if (filter.tag) rapport::addTagFilter(where, kTags, *filter.tag);
//
// The tag table and its counts table are declared with listing_tables.h
// (ListingTables::tagTable() gives this TagTable's names).
//
// Identifiers (the TagTable's names) are pasted into SQL: pass only the
// module's own constants, never input. Values are always bound.
//
// Lifetime and threading: free functions without state; a TagTable only
// views its strings (give it string literals or constants that outlive it).
// The Tx is used as db.h says.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/where.h"

namespace rapport {

// A record type's tag table: one row (company_id, <recordColumn>, tag_lower,
// created_at) per tag, created_at copied from the record (it never changes),
// with PRIMARY KEY (<recordColumn>, tag_lower) and an index
// (company_id, tag_lower, created_at, <recordColumn>) that serves the tag
// filter and its default order; and a counts table (company_id, tag_lower,
// slot, total), PRIMARY KEY (company_id, tag_lower, slot), kept by row
// triggers on the tag table like selectPage's countsTable (list.h), for the
// filter's total. listing_tables.h generates both; the names are the
// module's constants:
//   constexpr rapport::TagTable kTags{"contact_tags", "contact_id", "contacts",
//                                     "contact_tag_counts"};
struct TagTable {
  std::string_view table;
  std::string_view recordColumn;
  std::string_view recordTable;  // the records: created_at is copied from there
  std::string_view countsTable;  // records per tag and tenant
};

// The tags, in order, as the JSON array text stored in a record's `tags`
// column: ["VIP","lead"].
RAPPORT_SDK_API std::string tagsToJsonText(const std::vector<std::string>& tags);
// The reverse; throws JsonParseError or std::logic_error on text that is not
// an array of strings (a corrupt row, a 500).
RAPPORT_SDK_API std::vector<std::string> tagsFromJsonText(std::string_view text);

// Replaces the tag rows of record `recordId` of tx's tenant by `tags`
// (lower-cased; pass them deduplicated, as Validator::tags returns them).
// Call it after the record's row is written: it copies its created_at.
RAPPORT_SDK_API void replaceTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId,
                                    const std::vector<std::string>& tags);
// Deletes the tag rows of record `recordId` of tx's tenant (with the record).
RAPPORT_SDK_API void deleteTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId);

// Adds the tag filter: records (by `id`) having `tag`, in any case (ASCII),
// through the tag table's index; a set membership (WhereClause).
RAPPORT_SDK_API void addTagFilter(WhereClause& where, const TagTable& tagTable,
                                  std::string_view tag);

}  // namespace rapport
