// The shared building blocks of a record module (contacts, companies, deals,
// activities...), one header per idea; this header includes them all, so code
// written against the former single query.h keeps compiling. New code
// includes the precise headers:
//
//   rapport/record_lookup.h   one record, read and row-locked (selectRecord)
//   rapport/where.h           the WHERE clause of a tenant's list (WhereClause)
//   rapport/list.h            one page and its total (selectPage, listResponse)
//   rapport/search.h          ?search= through an index (addTextSearch)
//   rapport/tags.h            tags and the tag filter (TagTable)
//   rapport/listing_tables.h  the counts and tag tables the SDK creates (ListingTables)
//   rapport/request_rules.h   filters, the search term, optional text, 409 on duplicates
//
// One implementation, so every list searches, filters, pages and validates
// the same way, and the subtle parts (LIKE and FTS5 escaping, the SQLite
// planner hint) are written once:
//
//   rapport::WhereClause where(db.dialect(), tenant);
//   if (filter.search) rapport::addTextSearch(where, "contacts_search", *filter.search);
//   if (filter.tag) rapport::addTagFilter(where, kTags, *filter.tag);
//   if (filter.ownerId) where.add("owner_id = ?", {*filter.ownerId});
//   rapport::ListPage found = rapport::selectPage(db, kColumns, "contacts", where, sort, page);
//
// Conventions of a record table (beyond db.h's), which these helpers rely on:
//   - search: a generated column `search_text` (search.h);
//   - tags: the record's `tags` column holds the tags as written, as a JSON
//     array (tagsToJsonText); a tag table (company_id, <record>_id, tag_lower,
//     created_at) and its counts table serve the tag filter (tags.h), created
//     with the record counts table by listing_tables.h.
//
// Identifiers passed to these helpers (tables, columns, conditions) are
// pasted into SQL: pass only the module's own constants, never input. Values
// are always bound.
#pragma once

#include "rapport/list.h"
#include "rapport/listing_tables.h"
#include "rapport/record_lookup.h"
#include "rapport/request_rules.h"
#include "rapport/search.h"
#include "rapport/tags.h"
#include "rapport/where.h"
