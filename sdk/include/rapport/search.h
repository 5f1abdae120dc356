// The ?search= of a list: a substring match, in any case, through an index on
// both engines.
//
//   if (filter.search) rapport::addTextSearch(where, "contacts_search", *filter.search);
//
// The record table's convention these helpers rely on: a generated column
// `search_text` holding the searchable fields, lower-cased and joined by a
// line break (so no match spans two fields). PostgreSQL indexes it with GIN
// (search_text gin_trgm_ops). SQLite names its rowid `seq INTEGER PRIMARY
// KEY` and indexes search_text with an FTS5 table (content = '<table>',
// content_rowid = 'seq', tokenize = 'trigram') kept in sync by triggers. The
// module writes them in its own migration (modules/contacts/migrations is
// the model); request_rules.h reads the term (searchParam).
//
// Identifiers passed here (the FTS5 table) are pasted into SQL: pass only the
// module's own constants, never input. The term is always bound.
//
// Lifetime and threading: free functions; addTextSearch with a database
// keeps a process-wide cache of trigram counts (thread-safe, below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rapport/export.h"
#include "rapport/where.h"

namespace rapport {

// The shortest term, in characters (code points), a trigram index can match.
inline constexpr std::size_t kTrigramLength = 3;
// The longest ?search= term a list accepts, in characters.
inline constexpr std::size_t kMaxSearchLength = 255;

// "%term%" for `LIKE ? ESCAPE '\'`: matches `term` anywhere, its own %, _ and
// \ escaped so they match literally.
RAPPORT_SDK_API std::string likeContains(std::string_view term);

// `term` as one FTS5 string: in double quotes, its own quotes doubled. FTS5
// reads it as one phrase (operators and quotes in it are literal); with the
// trigram tokenizer a phrase matches as a substring, in any case.
RAPPORT_SDK_API std::string ftsPhrase(std::string_view term);

// Adds to `where` the condition that matches `term` as a substring of the
// table's search_text, in any case (the conventions above), through the
// engine's index:
//   PostgreSQL: search_text LIKE lower(?) ESCAPE '\' with likeContains(term),
//     served by the trigram GIN index (the planner picks it by cost);
//   SQLite, terms of kTrigramLength characters or more:
//     seq IN (SELECT rowid FROM <ftsTable> WHERE <ftsTable> MATCH ?) with
//     ftsPhrase(term), added with addNarrowing;
//   SQLite, shorter terms (no trigram to look up): the same LIKE, which reads
//     the tenant's rows (documented limitation; ASCII-only case folding).
// `ftsTable` is the table's FTS5 table ("contacts_search"), used on SQLite only.
RAPPORT_SDK_API void addTextSearch(WhereClause& where, std::string_view ftsTable,
                                   std::string_view term);

// The most records a trigram count reads (kTrigramCountCap or more: common).
inline constexpr std::int64_t kTrigramCountCap = 10000;

// The same rows as addTextSearch(where, ftsTable, term), cheaper to find: the
// index is asked only for the term's two RAREST trigrams, and the term itself
// is checked on the records holding both. A common trigram (one in thousands
// of records: "ell", "com") costs the index far more than a rare one, and
// asking for every trigram of the term made a search pay for its commonest.
//   - How many records hold a trigram: one statement on `db` per trigram,
//     counting at most kTrigramCountCap, cached in the process for 10
//     minutes per index and trigram (a stale count costs speed, never a row);
//     of a long term, 12 of its trigrams spread over it.
//   - SQLite, an ASCII term of 4 characters or more whose rarest trigram is
//     under the cap:
//       seq IN (SELECT rowid FROM <ftsTable> WHERE <ftsTable> MATCH ?)
//       AND instr(search_text, ?) > 0
//     with the two trigrams as FTS5 strings joined by AND, and the term
//     lower-cased (ASCII, as search_text is). Other terms: the phrase.
//   - PostgreSQL, a term of 4 characters or more with a trigram of ASCII
//     letters and digits under the cap (pg_trgm indexes words: a trigram
//     with another character is not looked up):
//       search_text LIKE ? ESCAPE '\' [AND search_text LIKE ? ESCAPE '\']
//       AND (search_text || '') LIKE lower(?) ESCAPE '\'
//     (the whole term on an expression the index does not serve).
//     with the trigrams as likeContains patterns. Other terms: the LIKE.
// `table` is the record table ("contacts"), `ftsTable` its FTS5 table.
RAPPORT_SDK_API void addTextSearch(Queryable& db, WhereClause& where, std::string_view table,
                                   std::string_view ftsTable, std::string_view term);

}  // namespace rapport
