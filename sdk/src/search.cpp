// ?search= through the engine's index (rapport/search.h).
#include "rapport/search.h"

#include <string>

#include "rapport/validation.h"

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

void addTextSearch(WhereClause& where, std::string_view ftsTable, std::string_view term) {
  if (utf8Length(term) < kTrigramLength) {
    // No trigram to look up: the condition reads the tenant's rows.
    where.add("search_text LIKE lower(?) ESCAPE '\\'", {likeContains(term)});
  } else if (where.dialect() == Dialect::SQLite) {
    const std::string table(ftsTable);
    where.addNarrowing("seq IN (SELECT rowid FROM " + table + " WHERE " + table + " MATCH ?)",
                       {ftsPhrase(term)});
  } else {
    // The trigram index selects the matches (narrowing: selectPage counts
    // them in the page's statement).
    where.addNarrowing("search_text LIKE lower(?) ESCAPE '\\'", {likeContains(term)});
  }
}

}  // namespace rapport
