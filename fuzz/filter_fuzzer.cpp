// Fuzzes the record query language (rapport/record_query.h, decisions §13):
// the input is a list's `filter` text, parsed with Json::parse and compiled
// by RecordQuery::addFilter on both dialects over a declaration with every
// kind (text, id with a reference, enum, number, boolean, date, date-time,
// tags) and a referenced type for one-hop paths; the same JSON as a
// POST .../search body (readBody); the same text as a query string's
// parameters (read); and as a comma list of sort keys (sortOf).
//
// Properties, beyond "no crash, no sanitizer report":
// - a refusal is a rapport::Error 422 naming its parameter (filter errors
//   under "filter" or "filter.<path>"); any other exception is a finding;
// - both dialects accept or refuse the same filter, with the same errors;
// - an accepted filter binds every value: as many "?" in sql() as
//   params(), the tenant condition and the tenant first, and no bound text
//   that could break out of a literal (a quote, a semicolon, a control or
//   non-ASCII byte) appears in the SQL;
// - the limits bound the SQL: fewer than 500 AND/OR operators (SQLite
//   refuses an expression tree deeper than 1000);
// - a refused filter may have added nothing that is not bound either;
// - an accepted sort has at most 3 keys, each a declared sortable field (or
//   one the engine adds), none repeated; its ORDER BY is printable ASCII
//   without ';' or '?' (nothing of the input, nothing to bind);
// - read answers in cursor form exactly when limit or cursor was sent,
//   readBody always; the limit is within 1..100.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "FuzzSupport.h"
#include "rapport/error.h"
#include "rapport/http.h"
#include "rapport/json.h"
#include "rapport/pagination.h"
#include "rapport/record_query.h"
#include "rapport/where.h"
#include "unit/query/QuerySchemas.h"

namespace {

using rapport::Dialect;
using rapport::Json;
using rapport::QueryKind;
using rapport::RecordQuery;
using rapport::RecordSchema;
using rapport::WhereClause;

const std::string kTenant = "comp_fuzz";

// The declarations unit.query tests, shared (tests/unit/query/QuerySchemas.h).
RecordSchema companies() {
  return rapport::test::query::companiesSchema();
}

RecordSchema deals() {
  return rapport::test::query::dealsSchema();
}

const RecordQuery& query() {
  static const RecordQuery* instance = new RecordQuery(deals());
  return *instance;
}

// The record directory's lookup (RecordDirectory::query): companies only.
const RecordQuery* lookup(const std::string& recordType) {
  static const RecordQuery* company = new RecordQuery(companies());
  return recordType == "company" ? company : nullptr;
}

// The fields sortOf may accept: the declared sortable ones and the three the
// engine adds.
const std::set<std::string>& sortable() {
  static const std::set<std::string>* names = [] {
    auto* out = new std::set<std::string>{"id", "created_at", "updated_at"};
    for (const auto& field : deals().fields) {
      if (field.sortable && field.kind != QueryKind::Tags) out->insert(field.name);
    }
    return out;
  }();
  return *names;
}

[[noreturn]] void unexpected(const char* where, const std::exception& error) {
  std::fprintf(stderr, "property violated: %s threw something other than rapport::Error: %s\n",
               where, error.what());
  __builtin_trap();
}

// A bound text that could only reach the SQL by being pasted into it.
bool dangerous(const rapport::Value& value) {
  if (!std::holds_alternative<std::string>(value.variant())) return false;
  const std::string& text = value.asString();
  if (text.size() < 8) return false;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\'' || c == '"' || c == ';' || byte < 0x20 || byte >= 0x80) return true;
  }
  return false;
}

std::size_t occurrences(const std::string& text, std::string_view part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

void checkBound(const WhereClause& where) {
  const std::string sql = where.sql();
  std::size_t marks = 0;
  for (const char c : sql) marks += c == '?' ? 1 : 0;
  // Within the limits (50 conditions, 5 levels) the statement stays small:
  // SQLite refuses expression trees deeper than 1000, and a chain of n ORs
  // is n deep. 500 leaves room for every condition's own operators.
  FUZZ_CHECK(occurrences(sql, " AND ") + occurrences(sql, " OR ") < 500);
  FUZZ_CHECK(marks == where.params().size());
  FUZZ_CHECK(sql.starts_with(where.tenantCondition()));
  FUZZ_CHECK(!where.params().empty() && where.params().front().asString() == kTenant);
  for (const rapport::Value& value : where.params()) {
    if (dangerous(value)) FUZZ_CHECK(sql.find(value.asString()) == std::string::npos);
  }
}

struct Outcome {
  bool accepted = false;
  rapport::FieldErrors errors;
};

Outcome compile(Dialect dialect, const Json& filter) {
  WhereClause where(dialect, kTenant);
  Outcome outcome;
  try {
    query().addFilter(where, filter, lookup);
    outcome.accepted = true;
  } catch (const rapport::Error& error) {
    FUZZ_CHECK(error.status() == 422);
    FUZZ_CHECK(!error.errors().empty());
    for (const auto& [key, messages] : error.errors()) {
      FUZZ_CHECK(key == "filter" || key.starts_with("filter."));
      FUZZ_CHECK(!messages.empty());
    }
    outcome.errors = error.errors();
  } catch (const std::exception& error) {
    unexpected("addFilter", error);
  }
  checkBound(where);
  return outcome;
}

void checkFilter(const Json& filter) {
  const Outcome sqlite = compile(Dialect::SQLite, filter);
  const Outcome postgresql = compile(Dialect::PostgreSQL, filter);
  FUZZ_CHECK(sqlite.accepted == postgresql.accepted);
  FUZZ_CHECK(sqlite.errors == postgresql.errors);
}

bool knownParameter(const std::string& key) {
  static const std::set<std::string> names = {"filter", "sort",  "fields", "include", "limit",
                                              "cursor", "count", "page",   "per_page"};
  return names.contains(key) || key.starts_with("filter.");
}

void checkSort(const std::vector<std::string>& keys) {
  rapport::Sort sort;
  try {
    sort = query().sortOf(keys);
  } catch (const rapport::Error& error) {
    FUZZ_CHECK(error.status() == 422);
    FUZZ_CHECK(error.errors().contains("sort"));
    return;
  } catch (const std::exception& error) {
    unexpected("sortOf", error);
  }
  FUZZ_CHECK(keys.size() <= 3);
  std::set<std::string> seen;
  for (const std::string& key : keys) {
    const std::string name = key.starts_with('-') ? key.substr(1) : key;
    FUZZ_CHECK(sortable().contains(name));
    FUZZ_CHECK(seen.insert(name).second);
  }
  const std::string orderBy = rapport::orderByClause(sort);
  for (const char c : orderBy) {
    const auto byte = static_cast<unsigned char>(c);
    FUZZ_CHECK(byte >= 0x20 && byte < 0x80 && c != ';' && c != '?');
  }
}

void checkBody(const Json& body) {
  rapport::ListRequest list;
  try {
    list = query().readBody(body);
  } catch (const rapport::Error& error) {
    FUZZ_CHECK(error.status() == 422);
    for (const auto& [key, messages] : error.errors()) FUZZ_CHECK(knownParameter(key));
    return;
  } catch (const std::exception& error) {
    unexpected("readBody", error);
  }
  FUZZ_CHECK(list.cursorMode);
  FUZZ_CHECK(list.limit >= 1 && list.limit <= 100);
  checkFilter(list.filter);
  checkSort(list.sort);
}

// The text as a query string's parameters: the filter alone, then the lists
// (sort, fields, include), then the paging ones (limit, cursor, count).
void checkQueryString(std::string_view text, std::initializer_list<const char*> names) {
  rapport::Request request;
  request.method = "GET";
  request.apiVersion = "v1";
  for (const char* name : names) request.query[name] = std::string(text);
  rapport::ListRequest list;
  try {
    list = query().read(request);
  } catch (const rapport::Error& error) {
    FUZZ_CHECK(error.status() == 422);
    for (const auto& [key, messages] : error.errors()) FUZZ_CHECK(knownParameter(key));
    return;
  } catch (const std::exception& error) {
    unexpected("read", error);
  }
  FUZZ_CHECK(list.cursorMode ==
             (request.query.contains("limit") || request.query.contains("cursor")));
  FUZZ_CHECK(list.limit >= 1 && list.limit <= 100);
  checkFilter(list.filter);
  checkSort(list.sort);
}

std::vector<std::string> commaList(std::string_view text) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (keys.size() < 8) {
    const std::size_t comma = text.find(',', start);
    keys.emplace_back(
        text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapport::fuzz::asText(data, size);
  checkSort(commaList(text));
  checkQueryString(text, {"filter"});
  checkQueryString(text, {"sort", "fields", "include"});
  checkQueryString(text, {"limit", "cursor", "count"});
  Json parsed;
  try {
    parsed = Json::parse(text);
  } catch (const rapport::JsonParseError&) {
    return 0;
  }
  checkFilter(parsed);
  if (parsed.isObject()) {
    checkBody(parsed);
    checkBody(Json::object({{"filter", parsed}, {"limit", 5}}));
  }
  return 0;
}
