// How many records of a search index hold a trigram: the rarity that
// addTextSearch(db, ...) (rapport/search.h) picks its trigrams by.
//
// One statement per trigram the process has not counted in the last ten
// minutes, counting at most kTrigramCountCap matches (a common trigram
// stops there; only the rare ones need an exact number). The counts are
// process-wide, per index, shared by every thread. They only choose what
// the search asks the index for: a stale one costs speed, never a row.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rapport/db.h"

namespace rapport::detail {

// The counts of `trigrams` in the index of `table` (PostgreSQL: the trigram
// GIN index of its search_text) or of `ftsTable` (SQLite: the FTS5 table),
// in the order given, each between 0 and kTrigramCountCap.
std::vector<std::int64_t> trigramCounts(Queryable& db, std::string_view table,
                                        std::string_view ftsTable,
                                        const std::vector<std::string>& trigrams);

}  // namespace rapport::detail
