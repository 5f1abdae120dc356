// What the unit tests of the record query engine (rapport/record_query.h)
// share: declarations shaped like the CRM's (contacts, deals, companies), the
// directory lookup that lends companies and contacts for one-hop paths, and
// helpers that compile a filter on both dialects and check that every value
// is bound (as many "?" as parameters, the tenant first, no value in the SQL).
#pragma once

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "QuerySchemas.h"
#include "rapport/error.h"
#include "rapport/http.h"
#include "rapport/json.h"
#include "rapport/record_query.h"
#include "rapport/where.h"

namespace rapport::test::query {

inline const std::string kTenant = "comp_tenant";
inline constexpr Dialect kDialects[] = {Dialect::SQLite, Dialect::PostgreSQL};

inline const RecordQuery& contacts() {
  static const RecordQuery query(contactsSchema());
  return query;
}

inline const RecordQuery& deals() {
  static const RecordQuery query(dealsSchema());
  return query;
}

inline const RecordQuery& companies() {
  static const RecordQuery query(companiesSchema());
  return query;
}

// The record directory's lookup (RecordDirectory::query): companies and
// contacts lend their query language; anything else is unknown.
inline const RecordQuery* lookup(const std::string& recordType) {
  if (recordType == "company") return &companies();
  if (recordType == "contact") return &contacts();
  return nullptr;
}

inline std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Case-insensitive: the engine may write SQL keywords in either case.
inline bool hasWord(const std::string& sql, const std::string& part) {
  return has(lowered(sql), lowered(part));
}

inline std::size_t placeholders(const std::string& sql) {
  return static_cast<std::size_t>(std::count(sql.begin(), sql.end(), '?'));
}

inline const char* dialectName(Dialect dialect) {
  return dialect == Dialect::SQLite ? "sqlite" : "postgresql";
}

// Every value bound: as many "?" as parameters, the tenant condition and
// the tenant first.
inline void assertBound(const WhereClause& where, const std::string& label) {
  const std::string sql = where.sql();
  CPPUNIT_ASSERT_EQUAL_MESSAGE(label + ": " + sql, where.params().size(), placeholders(sql));
  CPPUNIT_ASSERT_MESSAGE(label + ": " + sql, sql.starts_with(where.tenantCondition()));
  CPPUNIT_ASSERT_MESSAGE(label, !where.params().empty());
  CPPUNIT_ASSERT_EQUAL_MESSAGE(label, kTenant, where.params().front().asString());
}

// The filter (JSON text) compiled on `dialect`; a refusal fails the test.
inline WhereClause compiled(const RecordQuery& query, Dialect dialect, const std::string& filter) {
  WhereClause where(dialect, kTenant);
  try {
    query.addFilter(where, Json::parse(filter), lookup);
  } catch (const Error& error) {
    std::string keys;
    for (const auto& [key, messages] : error.errors()) keys += key + " ";
    CPPUNIT_FAIL(std::string(dialectName(dialect)) + ": " + filter + " refused (" +
                 std::to_string(error.status()) + " " + keys + "): " + error.what());
  }
  assertBound(where, std::string(dialectName(dialect)) + " " + filter);
  return where;
}

// The 422 field errors of the filter (JSON text); {} when it is accepted.
// Both dialects must give the same answer: the checks are the declaration's.
inline FieldErrors filterErrors(const RecordQuery& query, const std::string& filter) {
  FieldErrors found[2];
  bool refused[2] = {false, false};
  const Dialect dialects[2] = {Dialect::SQLite, Dialect::PostgreSQL};
  for (int i = 0; i < 2; ++i) {
    WhereClause where(dialects[i], kTenant);
    try {
      query.addFilter(where, Json::parse(filter), lookup);
      assertBound(where, std::string(dialectName(dialects[i])) + " " + filter);
    } catch (const Error& error) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(filter, 422, error.status());
      CPPUNIT_ASSERT_MESSAGE(filter + ": a 422 without field errors", !error.errors().empty());
      found[i] = error.errors();
      refused[i] = true;
    }
  }
  CPPUNIT_ASSERT_EQUAL_MESSAGE(filter + ": refused on one dialect only", refused[0], refused[1]);
  CPPUNIT_ASSERT_MESSAGE(filter + ": the dialects name different errors", found[0] == found[1]);
  return found[0];
}

inline std::string keysOf(const FieldErrors& errors) {
  std::string keys;
  for (const auto& [key, messages] : errors) keys += (keys.empty() ? "" : ", ") + key;
  return "{" + keys + "}";
}

// The filter is refused with a 422 naming exactly `key` (among its errors).
inline void assertRefusedOn(const RecordQuery& query, const std::string& filter,
                            const std::string& key) {
  const FieldErrors errors = filterErrors(query, filter);
  CPPUNIT_ASSERT_MESSAGE(filter + " was accepted (expected a 422 on " + key + ")", !errors.empty());
  CPPUNIT_ASSERT_MESSAGE(filter + ": expected " + key + ", got " + keysOf(errors),
                         errors.contains(key));
}

inline void assertAccepted(const RecordQuery& query, const std::string& filter) {
  const FieldErrors errors = filterErrors(query, filter);
  CPPUNIT_ASSERT_MESSAGE(filter + " refused: " + keysOf(errors), errors.empty());
}

// The errors of the request's query string read (read()), {} when accepted.
inline FieldErrors readErrors(const RecordQuery& query,
                              std::map<std::string, std::string> parameters) {
  Request request;
  request.method = "GET";
  request.apiVersion = "v1";
  request.query = std::move(parameters);
  try {
    query.read(request);
    return {};
  } catch (const Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
}

inline Request withQuery(std::map<std::string, std::string> parameters) {
  Request request;
  request.method = "GET";
  request.apiVersion = "v1";
  request.query = std::move(parameters);
  return request;
}

// The parameters after the tenant's, as text (numbers formatted).
inline std::vector<std::string> boundAfterTenant(const WhereClause& where) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i < where.params().size(); ++i) {
    out.push_back(where.params()[i].asString());
  }
  return out;
}

inline bool bindsText(const WhereClause& where, const std::string& text) {
  for (const Value& value : where.params()) {
    if (std::holds_alternative<std::string>(value.variant()) && value.asString() == text) {
      return true;
    }
  }
  return false;
}

// A bound text that holds `part`, in any case (a LIKE pattern may wrap and
// escape it, or the engine may lower-case it).
inline bool bindsTextContaining(const WhereClause& where, const std::string& part) {
  for (const Value& value : where.params()) {
    if (std::holds_alternative<std::string>(value.variant()) &&
        has(lowered(value.asString()), lowered(part))) {
      return true;
    }
  }
  return false;
}

inline bool bindsInteger(const WhereClause& where, std::int64_t number) {
  for (const Value& value : where.params()) {
    if (std::holds_alternative<std::int64_t>(value.variant()) && value.asInt() == number) {
      return true;
    }
  }
  return false;
}

}  // namespace rapport::test::query
