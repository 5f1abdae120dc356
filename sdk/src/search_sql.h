// The condition that finds a term through a table's search index, shared by
// ?search= (search.cpp, addTextSearch) and the query language's `contains`
// on a searchable field (query/filter.cpp).
#pragma once

#include <string>
#include <string_view>

#include "rapport/db.h"

namespace rapport::detail {

struct IndexedTerm {
  std::string sql;
  Params params;
};

// The index's answer for `term` (kTrigramLength characters or more) on
// `table` (PostgreSQL: the trigram index of its search_text; SQLite: the
// FTS5 table `ftsTable`). With `db`, the term's two rarest trigrams asked of
// the index and the whole term checked on their records, when the term
// allows it (rapport/search.h says when); otherwise, or without `db`, the
// whole term asked of the index:
//   SQLite      seq IN (SELECT rowid FROM <fts> WHERE <fts> MATCH ?)
//   PostgreSQL  search_text LIKE lower(?) ESCAPE '\'
IndexedTerm indexedTerm(Queryable* db, Dialect dialect, std::string_view table,
                        std::string_view ftsTable, std::string_view term);

}  // namespace rapport::detail
