// ?search= through the engine's index (rapport/search.h).
#include "rapport/search.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "rapport/validation.h"
#include "search_sql.h"
#include "trigram_counts.h"

namespace rapport {

std::string likeContains(std::string_view term) {
  std::string out = "%";
  for (char c : term) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

std::string ftsPhrase(std::string_view term) {
  std::string out = "\"";
  for (char c : term) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

namespace {

// Both addTextSearch: `db` (or nullptr) says whether the rarest trigrams
// may be asked for.
void addSearchOf(Queryable* db, WhereClause& where, std::string_view table,
                 std::string_view ftsTable, std::string_view term) {
  if (utf8Length(term) < kTrigramLength) {
    // No trigram to look up: the condition reads the tenant's rows.
    where.add("search_text LIKE lower(?) ESCAPE '\\'", {likeContains(term)});
    return;
  }
  // The index selects the matches (narrowing: selectPage counts them in the
  // page's statement).
  const detail::IndexedTerm found = detail::indexedTerm(db, where.dialect(), table, ftsTable, term);
  where.addBound(found.sql, found.params, true);
}

bool isWordCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// The most trigrams of one term whose counts are read: a long term (up to
// kMaxSearchLength) must not cost one count statement per character.
constexpr std::size_t kMaxCountedTrigrams = 12;

// The distinct trigrams of an ASCII `term` the engine's index can look up:
// every one on SQLite (FTS5 indexes every character), those of letters and
// digits only on PostgreSQL (pg_trgm indexes words); of more than
// kMaxCountedTrigrams, that many spread evenly over the term.
std::vector<std::string> lookupTrigrams(std::string_view term, Dialect dialect) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + kTrigramLength <= term.size(); ++i) {
    std::string trigram(term.substr(i, kTrigramLength));
    if (dialect == Dialect::PostgreSQL &&
        !std::all_of(trigram.begin(), trigram.end(), isWordCharacter)) {
      continue;
    }
    if (std::find(out.begin(), out.end(), trigram) == out.end()) out.push_back(std::move(trigram));
  }
  if (out.size() <= kMaxCountedTrigrams) return out;
  std::vector<std::string> spread;
  for (std::size_t i = 0; i < kMaxCountedTrigrams; ++i) {
    spread.push_back(std::move(out[i * out.size() / kMaxCountedTrigrams]));
  }
  return spread;
}

// The (at most) two rarest of `trigrams`, rarest first; none when even the
// rarest is common (the whole term is then the cheaper question).
std::vector<std::string> rarestTwo(std::vector<std::string> trigrams,
                                   const std::vector<std::int64_t>& counts) {
  std::vector<std::size_t> order(trigrams.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return counts[a] < counts[b]; });
  std::vector<std::string> out;
  if (order.empty() || counts[order.front()] >= kTrigramCountCap) return out;
  for (std::size_t i = 0; i < order.size() && out.size() < 2; ++i) {
    out.push_back(std::move(trigrams[order[i]]));
  }
  return out;
}

}  // namespace

void addTextSearch(WhereClause& where, std::string_view ftsTable, std::string_view term) {
  addSearchOf(nullptr, where, "", ftsTable, term);
}

void addTextSearch(Queryable& db, WhereClause& where, std::string_view table,
                   std::string_view ftsTable, std::string_view term) {
  addSearchOf(&db, where, table, ftsTable, term);
}

namespace detail {

IndexedTerm indexedTerm(Queryable* db, Dialect dialect, std::string_view table,
                        std::string_view ftsTable, std::string_view term) {
  const bool sqlite = dialect == Dialect::SQLite;
  const std::string fts(ftsTable);
  const std::string match = "seq IN (SELECT rowid FROM " + fts + " WHERE " + fts + " MATCH ?)";
  const IndexedTerm wholeTerm{sqlite ? match : "search_text LIKE lower(?) ESCAPE '\\'",
                              {sqlite ? Value(ftsPhrase(term)) : Value(likeContains(term))}};
  // A term of one trigram is its own rarest; a non-ASCII term (more bytes
  // than characters) keeps the index's own case folding (FTS5's is
  // Unicode, instr's would be bytes).
  const std::size_t length = utf8Length(term);
  if (db == nullptr || length <= kTrigramLength || length != term.size()) return wholeTerm;
  const std::string lowered = toLower(term);
  std::vector<std::string> trigrams = lookupTrigrams(lowered, dialect);
  const std::vector<std::int64_t> counts = trigramCounts(*db, table, ftsTable, trigrams);
  const std::vector<std::string> rarest = rarestTwo(std::move(trigrams), counts);
  if (rarest.empty()) return wholeTerm;
  if (sqlite) {
    std::string both;
    for (const std::string& trigram : rarest) {
      both += (both.empty() ? "" : " AND ") + ftsPhrase(trigram);
    }
    return {match + " AND instr(search_text, ?) > 0", {both, lowered}};
  }
  IndexedTerm out;
  for (const std::string& trigram : rarest) {
    out.sql += "search_text LIKE ? ESCAPE '\\' AND ";
    out.params.emplace_back(likeContains(trigram));
  }
  // The whole term checked on an expression, `search_text || ''`, that the
  // index does not serve: as `search_text LIKE` the planner would hand it to
  // the trigram index too, which then reads every trigram again. It also
  // gives the planner the whole pattern's low estimate; with the trigrams'
  // alone it guessed hundreds of rows and walked the tenant's rows in the
  // list's order instead (25 ms against 0.1 at 100 000 contacts).
  out.sql += "(search_text || '') LIKE lower(?) ESCAPE '\\'";
  out.params.emplace_back(likeContains(term));
  return out;
}

}  // namespace detail

}  // namespace rapport
