// What RecordQuery::addFilter refuses (rapport/record_query.h, decisions
// §13): an unknown field or operator, an operator that does not fit the
// field's kind, a value of the wrong type, more than 50 conditions or 5
// levels, an `in` of more than 100 values, a hop that is not a declared
// reference. Each is a 422 naming the path (errors["filter.value.gte"]), the
// same on both dialects.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "QueryTestSupport.h"

using rapport::Dialect;
using rapport::FieldErrors;
using rapport::WhereClause;
using namespace rapport::test::query;

namespace {

// `count` conditions, each its own field condition, under an `and`.
std::string conditions(int count) {
  std::string items;
  for (int i = 0; i < count; ++i) {
    items += (i ? "," : "") + std::string(R"({"value":{"gte":)") + std::to_string(i) + "}}";
  }
  return R"({"and":[)" + items + "]}";
}

// A filter `levels` objects deep: the top level, then `not` inside `not`.
std::string nested(int levels) {
  std::string filter = R"({"status":"open"})";
  for (int i = 1; i < levels; ++i) filter = R"({"not":)" + filter + "}";
  return filter;
}

// The same depth through and/or arrays.
std::string nestedThroughArrays(int levels) {
  std::string filter = R"({"value":{"gt":1}})";
  for (int i = 1; i < levels; ++i) {
    filter = std::string(i % 2 ? R"({"and":[)" : R"({"or":[)") + filter + "]}";
  }
  return filter;
}

// A limit is the whole filter's: refused under "filter" or one of its paths.
void assertRefusedUnderFilter(const rapport::RecordQuery& query, const std::string& filter) {
  const FieldErrors errors = filterErrors(query, filter);
  CPPUNIT_ASSERT_MESSAGE(filter.substr(0, 80) + "... accepted", !errors.empty());
  for (const auto& [key, messages] : errors) {
    CPPUNIT_ASSERT_MESSAGE(key, key == "filter" || key.starts_with("filter."));
  }
}

// `count` empty filters under `combinator`: no condition each.
std::string emptyFilters(const char* combinator, int count) {
  std::string items;
  for (int i = 0; i < count; ++i) items += i ? ",{}" : "{}";
  return std::string(R"({")") + combinator + R"(":[)" + items + "]}";
}

// The AND and OR operators of the SQL: SQLite refuses a statement whose
// expression tree is deeper than 1000 (SQLITE_MAX_EXPR_DEPTH), and a chain
// of n ORs is n deep.
std::size_t booleanOperators(const std::string& sql) {
  std::size_t count = 0;
  for (const char* op : {" and ", " or "}) {
    const std::string low = lowered(sql);
    for (std::size_t at = low.find(op); at != std::string::npos; at = low.find(op, at + 1)) {
      ++count;
    }
  }
  return count;
}

std::string inOf(int count) {
  std::string values;
  for (int i = 0; i < count; ++i) values += (i ? "," : "") + std::to_string(i);
  return R"({"probability":{"in":[)" + values + "]}}";
}

}  // namespace

class FilterErrorsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(FilterErrorsTest);
  CPPUNIT_TEST(testNotAnObjectIsRefusedOnFilter);
  CPPUNIT_TEST(testUnknownFieldNamesTheField);
  CPPUNIT_TEST(testUnknownOperatorNamesTheOperator);
  CPPUNIT_TEST(testIdTakesOnlyEqNeInNinNull);
  CPPUNIT_TEST(testEnumTakesOnlyEqNeInNinNull);
  CPPUNIT_TEST(testNumbersAndDatesTakeNoTextOperators);
  CPPUNIT_TEST(testBooleanTakesOnlyEqNeNull);
  CPPUNIT_TEST(testDateTimeTakesInButNoTextOperators);
  CPPUNIT_TEST(testTagsTakeOnlyContainsAndNull);
  CPPUNIT_TEST(testTagsLiteralIsRefusedLikeEq);
  CPPUNIT_TEST(testValuesOfTheWrongType);
  CPPUNIT_TEST(testEnumValueOutsideItsOptions);
  CPPUNIT_TEST(testImpossibleDatesAndDateTimes);
  CPPUNIT_TEST(testCombinatorsOfTheWrongShape);
  CPPUNIT_TEST(testNestedErrorsNameTheirPath);
  CPPUNIT_TEST(testFiftyConditionsAtMost);
  CPPUNIT_TEST(testFiveLevelsAtMost);
  CPPUNIT_TEST(testEmptyFiltersDoNotBypassTheLimits);
  CPPUNIT_TEST(testInOfAHundredValuesAtMost);
  CPPUNIT_TEST(testUnknownHops);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNotAnObjectIsRefusedOnFilter() {
    for (const char* filter : {"[]", R"(["status"])", "1", R"("open")", "true"}) {
      assertRefusedOn(deals(), filter, "filter");
    }
  }

  void testUnknownFieldNamesTheField() {
    assertRefusedOn(deals(), R"({"nope":1})", "filter.nope");
    assertRefusedOn(deals(), R"({"nope":{"eq":1}})", "filter.nope");
    // Columns that are not declared fields are not reachable by name.
    assertRefusedOn(deals(), R"({"crm_company_id":"cmp_1"})", "filter.crm_company_id");
    assertRefusedOn(deals(), R"({"company_id; DROP TABLE deals":"x"})",
                    "filter.company_id; DROP TABLE deals");
    // Field names are exact.
    assertRefusedOn(deals(), R"({"Status":"open"})", "filter.Status");
    // A known field beside an unknown one: the unknown one is named.
    assertRefusedOn(deals(), R"({"status":"open","nope":1})", "filter.nope");
  }

  void testUnknownOperatorNamesTheOperator() {
    assertRefusedOn(deals(), R"({"value":{"between":[1,2]}})", "filter.value.between");
    assertRefusedOn(deals(), R"({"value":{"GTE":1}})", "filter.value.GTE");
    assertRefusedOn(deals(), R"({"value":{"gte":1,"like":"%"}})", "filter.value.like");
    // Combinators are not operators of a field.
    assertRefusedOn(deals(), R"({"value":{"and":[]}})", "filter.value.and");
  }

  // One test per kind, so that each kind's refusals show on their own.
  void testIdTakesOnlyEqNeInNinNull() {
    for (const char* op : {"gt", "gte", "lt", "lte", "contains", "starts_with"}) {
      assertRefusedOn(deals(), std::string(R"({"owner_id":{")") + op + R"(":"user_x"}})",
                      std::string("filter.owner_id.") + op);
    }
  }

  void testEnumTakesOnlyEqNeInNinNull() {
    for (const char* op : {"gt", "gte", "lt", "lte", "contains", "starts_with"}) {
      assertRefusedOn(deals(), std::string(R"({"status":{")") + op + R"(":"open"}})",
                      std::string("filter.status.") + op);
    }
  }

  void testNumbersAndDatesTakeNoTextOperators() {
    for (const char* op : {"contains", "starts_with"}) {
      assertRefusedOn(deals(), std::string(R"({"value":{")") + op + R"(":1}})",
                      std::string("filter.value.") + op);
      assertRefusedOn(deals(),
                      std::string(R"({"expected_close_date":{")") + op + R"(":"2026-01-01"}})",
                      std::string("filter.expected_close_date.") + op);
      assertRefusedOn(
          deals(), std::string(R"({"last_activity_at":{")") + op + R"(":"2026-01-01T00:00:00Z"}})",
          std::string("filter.last_activity_at.") + op);
    }
  }

  void testBooleanTakesOnlyEqNeNull() {
    for (const char* op : {"gt", "gte", "lt", "lte", "contains", "starts_with"}) {
      assertRefusedOn(deals(), std::string(R"({"archived":{")") + op + R"(":true}})",
                      std::string("filter.archived.") + op);
    }
    assertRefusedOn(deals(), R"({"archived":{"in":[true]}})", "filter.archived.in");
  }

  void testDateTimeTakesInButNoTextOperators() {
    // DateTime: the comparisons, in, nin (instants, as eq reads them) and
    // null; not the text operators.
    assertAccepted(deals(), R"({"last_activity_at":{"in":["2026-01-01T00:00:00Z"]}})");
    assertAccepted(deals(), R"({"last_activity_at":{"nin":["2026-01-01T02:00:00+02:00"]}})");
    assertRefusedOn(deals(), R"({"last_activity_at":{"contains":"2026"}})",
                    "filter.last_activity_at.contains");
    assertRefusedOn(deals(), R"({"last_activity_at":{"in":["yesterday"]}})",
                    "filter.last_activity_at.in.0");
  }

  void testTagsTakeOnlyContainsAndNull() {
    for (const char* op : {"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "starts_with"}) {
      const std::string value =
          std::string(op) == "in" || std::string(op) == "nin" ? R"(["vip"])" : R"("vip")";
      assertRefusedOn(deals(), std::string(R"({"tags":{")") + op + R"(":)" + value + "}}",
                      std::string("filter.tags.") + op);
    }
  }

  void testTagsLiteralIsRefusedLikeEq() {
    // A literal is equality, which tags do not take.
    const FieldErrors literal = filterErrors(deals(), R"({"tags":"vip"})");
    CPPUNIT_ASSERT_MESSAGE("{\"tags\":\"vip\"} accepted", !literal.empty());
    CPPUNIT_ASSERT_MESSAGE(keysOf(literal),
                           literal.contains("filter.tags") || literal.contains("filter.tags.eq"));
  }

  void testValuesOfTheWrongType() {
    // Number: integers only.
    assertRefusedOn(deals(), R"({"value":{"gte":"100"}})", "filter.value.gte");
    assertRefusedOn(deals(), R"({"value":{"gte":1.5}})", "filter.value.gte");
    assertRefusedOn(deals(), R"({"value":{"gte":true}})", "filter.value.gte");
    assertRefusedOn(deals(), R"({"value":{"gte":null}})", "filter.value.gte");
    assertRefusedOn(deals(), R"({"value":{"gte":[1]}})", "filter.value.gte");
    assertRefusedOn(deals(), R"({"value":"100"})", "filter.value");
    // Text, Id, Enum, Date: strings only.
    assertRefusedOn(contacts(), R"({"name":{"eq":5}})", "filter.name.eq");
    assertRefusedOn(contacts(), R"({"name":{"contains":{"x":1}}})", "filter.name.contains");
    assertRefusedOn(contacts(), R"({"owner_id":{"eq":7}})", "filter.owner_id.eq");
    assertRefusedOn(deals(), R"({"status":{"eq":true}})", "filter.status.eq");
    assertRefusedOn(deals(), R"({"won_at":{"gte":20260101}})", "filter.won_at.gte");
    // Boolean: true or false only.
    assertRefusedOn(deals(), R"({"archived":"true"})", "filter.archived");
    assertRefusedOn(deals(), R"({"archived":{"eq":1}})", "filter.archived.eq");
    // in and nin: arrays of the kind's values.
    assertRefusedOn(deals(), R"({"status":{"in":"open"}})", "filter.status.in");
    assertRefusedOn(deals(), R"({"probability":{"nin":5}})", "filter.probability.nin");
    const FieldErrors mixed = filterErrors(deals(), R"({"probability":{"in":[1,"2"]}})");
    CPPUNIT_ASSERT_MESSAGE(keysOf(mixed), mixed.contains("filter.probability.in") ||
                                              mixed.contains("filter.probability.in.1"));
    // null: true or false only.
    assertRefusedOn(contacts(), R"({"owner_id":{"null":"yes"}})", "filter.owner_id.null");
    assertRefusedOn(contacts(), R"({"owner_id":{"null":1}})", "filter.owner_id.null");
    // Tags contains: a string.
    assertRefusedOn(contacts(), R"({"tags":{"contains":["vip"]}})", "filter.tags.contains");
  }

  void testEnumValueOutsideItsOptions() {
    assertRefusedOn(deals(), R"({"status":"pending"})", "filter.status");
    assertRefusedOn(deals(), R"({"status":{"eq":"OPEN"}})", "filter.status.eq");
    assertRefusedOn(deals(), R"({"status":{"ne":"pending"}})", "filter.status.ne");
    const FieldErrors in = filterErrors(deals(), R"({"status":{"in":["open","pending"]}})");
    CPPUNIT_ASSERT_MESSAGE(keysOf(in),
                           in.contains("filter.status.in") || in.contains("filter.status.in.1"));
  }

  void testImpossibleDatesAndDateTimes() {
    for (const char* date : {"2026-02-30", "2025-02-29", "2026-13-01", "2026-1-1", "26-01-01",
                             "2026-01-01T00:00:00Z", "", "tomorrow"}) {
      assertRefusedOn(deals(), std::string(R"({"won_at":{"gte":")") + date + R"("}})",
                      "filter.won_at.gte");
    }
    assertAccepted(deals(), R"({"won_at":{"gte":"2024-02-29"}})");
    for (const char* instant : {"2026-01-01T25:00:00Z", "2026-02-30T00:00:00Z",
                                "2026-01-01T00:00:00+25:00", "2026-01-01 00:00", "now", ""}) {
      assertRefusedOn(deals(), std::string(R"({"last_activity_at":{"lt":")") + instant + R"("}})",
                      "filter.last_activity_at.lt");
    }
  }

  void testCombinatorsOfTheWrongShape() {
    assertRefusedOn(deals(), R"({"and":{"status":"open"}})", "filter.and");
    assertRefusedOn(deals(), R"({"or":"status"})", "filter.or");
    assertRefusedOn(deals(), R"({"not":[{"status":"open"}]})", "filter.not");
    assertRefusedOn(deals(), R"({"not":"open"})", "filter.not");
    const FieldErrors item = filterErrors(deals(), R"({"or":[{"status":"open"},5]})");
    CPPUNIT_ASSERT_MESSAGE(keysOf(item),
                           item.contains("filter.or.1") || item.contains("filter.or"));
  }

  void testNestedErrorsNameTheirPath() {
    assertRefusedOn(deals(), R"({"or":[{"status":"open"},{"value":{"gte":"x"}}]})",
                    "filter.or.1.value.gte");
    assertRefusedOn(deals(), R"({"and":[{"nope":1}]})", "filter.and.0.nope");
    assertRefusedOn(deals(), R"({"not":{"value":{"between":1}}})", "filter.not.value.between");
    assertRefusedOn(deals(), R"({"not":{"or":[{"status":"x"}]}})", "filter.not.or.0.status");
    assertRefusedOn(contacts(), R"({"company.size":{"eq":"huge"}})", "filter.company.size.eq");
  }

  void testFiftyConditionsAtMost() {
    assertAccepted(deals(), conditions(50));
    assertRefusedUnderFilter(deals(), conditions(51));
    // Operators count one each: 25 fields of two operators are 50.
    std::string pairs;
    for (int i = 0; i < 26; ++i) {
      pairs +=
          (i ? "," : "") + std::string(R"({"value":{"gte":1,"lte":)") + std::to_string(i) + "}}";
    }
    assertRefusedUnderFilter(deals(), R"({"and":[)" + pairs + "]}");
  }

  void testFiveLevelsAtMost() {
    // The top-level object is the first level.
    assertAccepted(deals(), nested(5));
    assertRefusedUnderFilter(deals(), nested(6));
    assertAccepted(deals(), nestedThroughArrays(5));
    assertRefusedUnderFilter(deals(), nestedThroughArrays(6));
    // Deep JSON far past the limit is a 422, not a crash.
    assertRefusedUnderFilter(deals(), nested(40));
  }

  // Filters without conditions count for nothing, but each still adds SQL:
  // a filter the limits let through must compile to a statement both
  // engines run, or be refused as the limits are.
  void testEmptyFiltersDoNotBypassTheLimits() {
    const std::string nestedEmpty =
        R"({"or":[)" + emptyFilters("and", 600) + "," + emptyFilters("and", 600) + "]}";
    for (const std::string& filter :
         {emptyFilters("or", 1200), emptyFilters("and", 1200), nestedEmpty}) {
      const FieldErrors errors = filterErrors(deals(), filter);
      if (!errors.empty()) {
        for (const auto& [key, messages] : errors) {
          CPPUNIT_ASSERT_MESSAGE(key, key == "filter" || key.starts_with("filter."));
        }
        continue;
      }
      for (const Dialect dialect : kDialects) {
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(filter.substr(0, 40) + "... accepted, and compiles to " +
                                   std::to_string(booleanOperators(where.sql())) +
                                   " AND/OR operators (SQLite refuses 1000 deep)",
                               booleanOperators(where.sql()) < 1000);
      }
    }
  }

  void testInOfAHundredValuesAtMost() {
    assertAccepted(deals(), inOf(100));
    assertRefusedOn(deals(), inOf(101), "filter.probability.in");
    std::string values;
    for (int i = 0; i < 101; ++i)
      values += (i ? "," : "") + std::string(R"("user_)") + std::to_string(i) + R"(")";
    assertRefusedOn(deals(), R"({"owner_id":{"nin":[)" + values + "]}}", "filter.owner_id.nin");
  }

  void testUnknownHops() {
    // owner_id is no declared reference.
    assertRefusedOn(contacts(), R"({"owner.name":"x"})", "filter.owner.name");
    // A field the target does not declare.
    assertRefusedOn(contacts(), R"({"company.nope":"x"})", "filter.company.nope");
    // The hop's own name, not the field's: "company_id.industry" is no path.
    assertRefusedOn(contacts(), R"({"company_id.industry":"x"})", "filter.company_id.industry");
    // One hop only.
    assertRefusedOn(deals(), R"({"contact.company.industry":"retail"})",
                    "filter.contact.company.industry");
    // A reference whose target the directory does not know.
    rapport::RecordQuery orphan({.recordType = "note",
                                 .table = "notes",
                                 .fields = {{.name = "project_id",
                                             .column = "project_id",
                                             .kind = rapport::QueryKind::Id,
                                             .reference = "project"}}});
    assertRefusedOn(orphan, R"({"project.name":"x"})", "filter.project.name");
    // A lookup that knows nothing.
    for (const Dialect dialect : {Dialect::SQLite, Dialect::PostgreSQL}) {
      WhereClause where(dialect, kTenant);
      try {
        contacts().addFilter(where, rapport::Json::parse(R"({"company.industry":"retail"})"),
                             [](const std::string&) { return nullptr; });
        CPPUNIT_FAIL("a hop to an unknown record type was accepted");
      } catch (const rapport::Error& error) {
        CPPUNIT_ASSERT_EQUAL(422, error.status());
        CPPUNIT_ASSERT_MESSAGE(keysOf(error.errors()),
                               error.errors().contains("filter.company.industry"));
      }
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(FilterErrorsTest);
