// RecordQuery::addFilter (rapport/record_query.h) on both dialects: each
// operator on each kind it fits compiles to a condition on the declared
// column with every value bound (as many "?" as parameters, the value among
// the parameters and never in the SQL text), one-hop paths go through the
// referenced type's own declaration, `ne`/`nin` match unset fields and `not`
// is the exact complement of its filter.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "QueryTestSupport.h"

using rapport::Dialect;
using rapport::RecordQuery;
using rapport::WhereClause;
using namespace rapport::test::query;

namespace {

// The SQL after the tenant's condition: what the filter added.
std::string addedSql(const WhereClause& where) {
  return where.sql().substr(where.tenantCondition().size());
}

std::string label(Dialect dialect, const std::string& filter) {
  return std::string(dialectName(dialect)) + " " + filter;
}

// A null-safe negation: the condition also holds where the column is NULL.
// Accepted forms: an explicit "IS NULL" branch, "IS NOT TRUE", "IS DISTINCT
// FROM", a coalesce around the comparison, or an anti-join on the record's
// own id ("id NOT IN (SELECT ...)", NOT EXISTS); "<column> NOT IN (SELECT"
// is not one (NULL NOT IN (...) is NULL).
bool nullSafe(const std::string& sql) {
  static const std::regex antiJoin(R"((^|[^a-z0-9_.])id not in \(select)");
  return hasWord(sql, "is null") || hasWord(sql, "is not true") || hasWord(sql, "is distinct") ||
         hasWord(sql, "coalesce(") || std::regex_search(lowered(sql), antiJoin) ||
         hasWord(sql, "not exists");
}

}  // namespace

class FilterOperatorsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(FilterOperatorsTest);
  CPPUNIT_TEST(testLiteralIsEquality);
  CPPUNIT_TEST(testTextOperatorsBindTheirValue);
  CPPUNIT_TEST(testNoValueEverReachesTheSql);
  CPPUNIT_TEST(testContainsAndStartsWithBindTheText);
  CPPUNIT_TEST(testInAndNinBindEachValueInOrder);
  CPPUNIT_TEST(testInOfAHundredValues);
  CPPUNIT_TEST(testNullTrueAndFalse);
  CPPUNIT_TEST(testNumberComparisonsBindIntegers);
  CPPUNIT_TEST(testEnumValues);
  CPPUNIT_TEST(testIdOperators);
  CPPUNIT_TEST(testBooleanOperators);
  CPPUNIT_TEST(testDateComparisonsBindTheDate);
  CPPUNIT_TEST(testDateTimeWithAnyOffsetBindsUtcMicroseconds);
  CPPUNIT_TEST(testTagsContainsLooksUpTheLowerCasedTag);
  CPPUNIT_TEST(testCreatedAtAndUpdatedAtAreAddedByTheEngine);
  CPPUNIT_TEST(testSeveralOperatorsOnOneField);
  CPPUNIT_TEST(testTheDecisionsExample);
  CPPUNIT_TEST(testNeAndNinMatchUnsetFields);
  CPPUNIT_TEST(testNotIsTheExactComplement);
  CPPUNIT_TEST(testAndOrNotCombine);
  CPPUNIT_TEST(testEmptyFilterAddsNothing);
  CPPUNIT_TEST(testOneHopThroughAReference);
  CPPUNIT_TEST(testOneHopAsksTheLookupForTheTarget);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testLiteralIsEquality() {
    for (const Dialect dialect : kDialects) {
      const WhereClause literal = compiled(contacts(), dialect, R"({"name":"Ada"})");
      const WhereClause eq = compiled(contacts(), dialect, R"({"name":{"eq":"Ada"}})");
      CPPUNIT_ASSERT_EQUAL(eq.sql(), literal.sql());
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, literal.params().size());
      CPPUNIT_ASSERT_EQUAL(std::string("Ada"), literal.params().at(1).asString());
      CPPUNIT_ASSERT_MESSAGE(literal.sql(), has(addedSql(literal), "name"));
      CPPUNIT_ASSERT(literal.filtered());
    }
  }

  void testTextOperatorsBindTheirValue() {
    for (const Dialect dialect : kDialects) {
      for (const char* op : {"eq", "ne", "gt", "gte", "lt", "lte"}) {
        const std::string filter = std::string(R"({"job_title":{")") + op + R"(":"Engineer"}})";
        const WhereClause where = compiled(contacts(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + ": " + where.sql(),
                               has(addedSql(where), "job_title"));
        // gt..lte compare case-insensitively: the engine may bind it lower-cased.
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter), bindsTextContaining(where, "Engineer"));
      }
    }
  }

  void testNoValueEverReachesTheSql() {
    // Values that would break out of a quoted literal, or look like SQL.
    const std::string nasty = R"(x' OR '1'='1; DROP TABLE contacts; --)";
    const std::vector<std::string> filters = {
        R"({"name":")" + nasty + R"("})",
        R"({"name":{"ne":")" + nasty + R"("}})",
        R"({"name":{"gte":")" + nasty + R"("}})",
        R"({"name":{"contains":")" + nasty + R"("}})",
        R"({"name":{"starts_with":")" + nasty + R"("}})",
        R"({"email":{"in":["a@b.io",")" + nasty + R"("]}})",
        R"({"email":{"nin":[")" + nasty + R"("]}})",
        R"({"owner_id":")" + nasty + R"("})",
        R"({"tags":{"contains":")" + nasty + R"("}})",
        R"({"company.industry":")" + nasty + R"("})",
        R"({"not":{"or":[{"job_title":")" + nasty + R"("},{"name":"?"}]}})",
    };
    for (const Dialect dialect : kDialects) {
      for (const std::string& filter : filters) {
        const WhereClause where = compiled(contacts(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + ": " + where.sql(),
                               !has(where.sql(), "DROP TABLE"));
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + ": " + where.sql(),
                               !has(where.sql(), "'1'='1"));
        CPPUNIT_ASSERT_MESSAGE(
            label(dialect, filter),
            bindsTextContaining(where, "DROP TABLE") || bindsTextContaining(where, "drop table"));
      }
    }
  }

  void testContainsAndStartsWithBindTheText() {
    for (const Dialect dialect : kDialects) {
      for (const char* op : {"contains", "starts_with"}) {
        const std::string filter = std::string(R"({"name":{")") + op + R"(":"AdA"}})";
        const WhereClause where = compiled(contacts(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + ": " + where.sql(),
                               has(addedSql(where), "name"));
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter), bindsTextContaining(where, "ada"));
      }
      // LIKE's wildcards in the value are the characters themselves: bound,
      // never pasted (a pattern may escape them, the value stays a parameter).
      const WhereClause wild = compiled(contacts(), dialect, R"({"name":{"contains":"50%_off"}})");
      CPPUNIT_ASSERT_MESSAGE(wild.sql(), !has(wild.sql(), "50"));
      CPPUNIT_ASSERT_MESSAGE(wild.sql(), bindsTextContaining(wild, "off"));
    }
  }

  void testInAndNinBindEachValueInOrder() {
    for (const Dialect dialect : kDialects) {
      for (const char* op : {"in", "nin"}) {
        const std::string filter =
            std::string(R"({"email":{")") + op + R"(":["a@x.io","b@x.io","c@x.io"]}})";
        const WhereClause where = compiled(contacts(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + ": " + where.sql(),
                               has(addedSql(where), "email"));
        std::vector<std::string> seen;
        for (const std::string& value : boundAfterTenant(where)) {
          if (value.find("@x.io") != std::string::npos) seen.push_back(value);
        }
        CPPUNIT_ASSERT_EQUAL_MESSAGE(label(dialect, filter), std::size_t{3}, seen.size());
        CPPUNIT_ASSERT_EQUAL(std::string("a@x.io"), seen[0]);
        CPPUNIT_ASSERT_EQUAL(std::string("b@x.io"), seen[1]);
        CPPUNIT_ASSERT_EQUAL(std::string("c@x.io"), seen[2]);
      }
    }
  }

  void testInOfAHundredValues() {
    std::string values;
    for (int i = 0; i < 100; ++i) values += (i ? "," : "") + std::to_string(1000 + i);
    for (const Dialect dialect : kDialects) {
      const WhereClause where = compiled(deals(), dialect, R"({"value":{"in":[)" + values + "]}}");
      for (int i = 0; i < 100; ++i) CPPUNIT_ASSERT(bindsInteger(where, 1000 + i));
      CPPUNIT_ASSERT_MESSAGE(where.sql(), !has(where.sql(), "1000"));
    }
  }

  void testNullTrueAndFalse() {
    for (const Dialect dialect : kDialects) {
      const WhereClause unset = compiled(contacts(), dialect, R"({"owner_id":{"null":true}})");
      CPPUNIT_ASSERT_MESSAGE(unset.sql(), hasWord(addedSql(unset), "is null"));
      CPPUNIT_ASSERT_MESSAGE(unset.sql(), has(addedSql(unset), "owner_id"));
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, unset.params().size());
      const WhereClause set = compiled(contacts(), dialect, R"({"owner_id":{"null":false}})");
      CPPUNIT_ASSERT_MESSAGE(set.sql(), hasWord(addedSql(set), "null"));
      CPPUNIT_ASSERT_MESSAGE(set.sql(), has(addedSql(set), "owner_id"));
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, set.params().size());
      CPPUNIT_ASSERT(unset.sql() != set.sql());
      for (const char* field : {"email", "company_id", "expected_close_date", "last_activity_at",
                                "probability", "archived"}) {
        const RecordQuery& query =
            std::string(field) == "email" || std::string(field) == "company_id" ? contacts()
                                                                                : deals();
        for (const char* flag : {"true", "false"}) {
          compiled(query, dialect, std::string(R"({")") + field + R"(":{"null":)" + flag + "}}");
        }
      }
    }
  }

  void testNumberComparisonsBindIntegers() {
    for (const Dialect dialect : kDialects) {
      for (const char* op : {"eq", "ne", "gt", "gte", "lt", "lte"}) {
        const std::string filter = std::string(R"({"value":{")") + op + R"(":123457}})";
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter), bindsInteger(where, 123457));
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + ": " + where.sql(),
                               has(addedSql(where), "value"));
        CPPUNIT_ASSERT_MESSAGE(where.sql(), !has(where.sql(), "123457"));
      }
      // Negative and zero are integers too (a filter value is not money).
      CPPUNIT_ASSERT(bindsInteger(compiled(deals(), dialect, R"({"probability":{"gt":-1}})"), -1));
      CPPUNIT_ASSERT(bindsInteger(compiled(deals(), dialect, R"({"value":0})"), 0));
    }
  }

  void testEnumValues() {
    for (const Dialect dialect : kDialects) {
      for (const char* filter :
           {R"({"status":"won"})", R"({"status":{"eq":"won"}})", R"({"status":{"ne":"won"}})",
            R"({"status":{"in":["won"]}})", R"({"status":{"nin":["won"]}})"}) {
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter), bindsText(where, "won"));
        CPPUNIT_ASSERT_MESSAGE(where.sql(), has(addedSql(where), "status"));
      }
      compiled(deals(), dialect, R"({"status":{"null":false}})");
    }
  }

  void testIdOperators() {
    for (const Dialect dialect : kDialects) {
      for (const char* filter :
           {R"({"owner_id":"user_abc"})", R"({"owner_id":{"ne":"user_abc"}})",
            R"({"owner_id":{"in":["user_abc","user_def"]}})",
            R"({"owner_id":{"nin":["user_abc"]}})", R"({"company_id":{"eq":"cmp_abc"}})"}) {
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter),
                               bindsText(where, "user_abc") || bindsText(where, "cmp_abc"));
      }
      // A reference's column is the declared one, not its API name.
      const WhereClause company = compiled(deals(), dialect, R"({"company_id":"cmp_abc"})");
      CPPUNIT_ASSERT_MESSAGE(company.sql(), has(addedSql(company), "crm_company_id"));
      // id itself is added by the engine.
      CPPUNIT_ASSERT(bindsText(compiled(deals(), dialect, R"({"id":"deal_1"})"), "deal_1"));
    }
  }

  void testBooleanOperators() {
    for (const Dialect dialect : kDialects) {
      for (const char* filter : {R"({"archived":true})", R"({"archived":{"eq":false}})",
                                 R"({"archived":{"ne":true}})", R"({"archived":{"null":true}})"}) {
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(where.sql(), has(addedSql(where), "archived"));
      }
      // The boolean itself is bound (as a boolean or 0/1), not written.
      const WhereClause yes = compiled(deals(), dialect, R"({"archived":true})");
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, yes.params().size());
      CPPUNIT_ASSERT_EQUAL(true, yes.params().at(1).asBool());
      const WhereClause no = compiled(deals(), dialect, R"({"archived":false})");
      CPPUNIT_ASSERT_EQUAL(false, no.params().at(1).asBool());
    }
  }

  void testDateComparisonsBindTheDate() {
    for (const Dialect dialect : kDialects) {
      for (const char* op : {"eq", "ne", "gt", "gte", "lt", "lte"}) {
        const std::string filter =
            std::string(R"({"expected_close_date":{")") + op + R"(":"2026-03-31"}})";
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter), bindsText(where, "2026-03-31"));
        CPPUNIT_ASSERT_MESSAGE(where.sql(), has(addedSql(where), "expected_close_date"));
        CPPUNIT_ASSERT_MESSAGE(where.sql(), !has(where.sql(), "2026"));
      }
      const WhereClause in =
          compiled(deals(), dialect, R"({"won_at":{"in":["2026-01-01","2024-02-29"]}})");
      CPPUNIT_ASSERT(bindsText(in, "2026-01-01") && bindsText(in, "2024-02-29"));
      const WhereClause range = compiled(
          deals(), dialect, R"({"expected_close_date":{"gte":"2026-01-01","lt":"2026-04-01"}})");
      CPPUNIT_ASSERT(bindsText(range, "2026-01-01") && bindsText(range, "2026-04-01"));
    }
  }

  void testDateTimeWithAnyOffsetBindsUtcMicroseconds() {
    // 2026-01-01T00:00:00Z is 1767225600 s after the epoch.
    const std::int64_t midnight = std::int64_t{1767225600} * 1000000;
    for (const Dialect dialect : kDialects) {
      for (const char* op : {"eq", "ne", "gt", "gte", "lt", "lte"}) {
        const std::string filter =
            std::string(R"({"last_activity_at":{")") + op + R"(":"2026-01-01T00:00:00Z"}})";
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter), bindsInteger(where, midnight));
        CPPUNIT_ASSERT_MESSAGE(where.sql(), has(addedSql(where), "last_activity_at"));
      }
      // The same instant written with other offsets.
      CPPUNIT_ASSERT(bindsInteger(
          compiled(deals(), dialect, R"({"last_activity_at":{"gte":"2026-01-01T01:00:00+01:00"}})"),
          midnight));
      CPPUNIT_ASSERT(bindsInteger(
          compiled(deals(), dialect, R"({"last_activity_at":{"gte":"2025-12-31T19:30:00-04:30"}})"),
          midnight));
      // Fractions of a second are kept to the microsecond.
      CPPUNIT_ASSERT(bindsInteger(
          compiled(deals(), dialect, R"({"created_at":{"lt":"2026-01-01T00:00:00.250Z"}})"),
          midnight + 250000));
    }
  }

  void testTagsContainsLooksUpTheLowerCasedTag() {
    for (const Dialect dialect : kDialects) {
      const WhereClause where = compiled(contacts(), dialect, R"({"tags":{"contains":"VIP"}})");
      CPPUNIT_ASSERT_MESSAGE(where.sql(), has(addedSql(where), "contact_tags"));
      // The tag table's key is the lower-cased tag: bound lower-cased, or
      // bound as sent and lowered by the SQL.
      CPPUNIT_ASSERT_MESSAGE(
          where.sql(),
          bindsText(where, "vip") || (bindsText(where, "VIP") && hasWord(where.sql(), "lower(?)")));
      CPPUNIT_ASSERT_MESSAGE(where.sql(), !hasWord(where.sql(), "vip"));
      // null: true is "no tag".
      compiled(contacts(), dialect, R"({"tags":{"null":true}})");
      compiled(contacts(), dialect, R"({"tags":{"null":false}})");
    }
  }

  void testCreatedAtAndUpdatedAtAreAddedByTheEngine() {
    for (const Dialect dialect : kDialects) {
      for (const char* field : {"created_at", "updated_at"}) {
        const WhereClause where =
            compiled(contacts(), dialect,
                     std::string(R"({")") + field + R"(":{"gt":"2026-01-01T00:00:00Z"}})");
        CPPUNIT_ASSERT_MESSAGE(where.sql(), has(addedSql(where), field));
      }
    }
  }

  void testSeveralOperatorsOnOneField() {
    for (const Dialect dialect : kDialects) {
      const WhereClause where =
          compiled(deals(), dialect, R"({"value":{"gte":1000,"lt":5000,"ne":2500}})");
      CPPUNIT_ASSERT(bindsInteger(where, 1000));
      CPPUNIT_ASSERT(bindsInteger(where, 5000));
      CPPUNIT_ASSERT(bindsInteger(where, 2500));
    }
  }

  void testTheDecisionsExample() {
    const std::string example = R"({"value":{"gte":100000},"status":{"in":["open","won"]},)"
                                R"("or":[{"owner_id":"user_x"},{"owner_id":{"null":true}}]})";
    for (const Dialect dialect : kDialects) {
      const WhereClause where = compiled(deals(), dialect, example);
      CPPUNIT_ASSERT(bindsInteger(where, 100000));
      CPPUNIT_ASSERT(bindsText(where, "open"));
      CPPUNIT_ASSERT(bindsText(where, "won"));
      CPPUNIT_ASSERT(bindsText(where, "user_x"));
      CPPUNIT_ASSERT_MESSAGE(where.sql(), hasWord(where.sql(), " or "));
      CPPUNIT_ASSERT_MESSAGE(where.sql(), hasWord(where.sql(), "is null"));
    }
  }

  void testNeAndNinMatchUnsetFields() {
    for (const Dialect dialect : kDialects) {
      for (const char* filter :
           {R"({"owner_id":{"ne":"user_x"}})", R"({"owner_id":{"nin":["user_x","user_y"]}})",
            R"({"job_title":{"ne":"CEO"}})", R"({"email":{"nin":["a@b.io"]}})",
            R"({"company_id":{"ne":"cmp_1"}})"}) {
        const WhereClause where = compiled(contacts(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + " must match unset: " + where.sql(),
                               nullSafe(addedSql(where)));
      }
      for (const char* filter :
           {R"({"expected_close_date":{"ne":"2026-01-01"}})", R"({"probability":{"nin":[10,20]}})",
            R"({"archived":{"ne":true}})",
            R"({"last_activity_at":{"ne":"2026-01-01T00:00:00Z"}})"}) {
        const WhereClause where = compiled(deals(), dialect, filter);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + " must match unset: " + where.sql(),
                               nullSafe(addedSql(where)));
      }
    }
  }

  void testNotIsTheExactComplement() {
    for (const Dialect dialect : kDialects) {
      // Nullable fields: NOT (owner_id = ?) alone would drop the unset ones.
      for (const char* filter :
           {R"({"not":{"owner_id":"user_x"}})", R"({"not":{"job_title":{"contains":"ceo"}}})",
            R"({"not":{"email":{"in":["a@b.io"]}}})", R"({"not":{"company.industry":"retail"}})",
            R"({"not":{"or":[{"owner_id":"user_x"},{"job_title":"CEO"}]}})"}) {
        const WhereClause where = compiled(contacts(), dialect, filter);
        const std::string added = addedSql(where);
        CPPUNIT_ASSERT_MESSAGE(label(dialect, filter) + ": " + where.sql(),
                               hasWord(added, "not") && nullSafe(added));
      }
      // not of not is the filter again: the same values bound.
      const WhereClause twice =
          compiled(contacts(), dialect, R"({"not":{"not":{"owner_id":"user_x"}}})");
      CPPUNIT_ASSERT(bindsText(twice, "user_x"));
      // not of ne: a record whose owner is unset matches ne, so not-ne
      // must leave it out; its SQL differs from plain eq only if needed,
      // but it must differ from ne's.
      const WhereClause ne = compiled(contacts(), dialect, R"({"owner_id":{"ne":"user_x"}})");
      const WhereClause notNe =
          compiled(contacts(), dialect, R"({"not":{"owner_id":{"ne":"user_x"}}})");
      CPPUNIT_ASSERT(ne.sql() != notNe.sql());
    }
  }

  void testAndOrNotCombine() {
    const std::string filter =
        R"({"and":[{"value":{"gt":1}},{"or":[{"status":"open"},{"not":{"title":{"starts_with":"x"}}}]}],)"
        R"("or":[{"owner_id":"user_a"},{"and":[{"probability":{"lte":50}},{"won_at":{"null":true}}]}]})";
    for (const Dialect dialect : kDialects) {
      const WhereClause where = compiled(deals(), dialect, filter);
      CPPUNIT_ASSERT(bindsInteger(where, 1));
      CPPUNIT_ASSERT(bindsText(where, "open"));
      CPPUNIT_ASSERT(bindsText(where, "user_a"));
      CPPUNIT_ASSERT(bindsInteger(where, 50));
      CPPUNIT_ASSERT_MESSAGE(where.sql(), hasWord(where.sql(), " or "));
      CPPUNIT_ASSERT_MESSAGE(where.sql(), hasWord(where.sql(), "not"));
      // Parenthesised: as many "(" as ")".
      const std::string sql = where.sql();
      CPPUNIT_ASSERT_EQUAL(std::count(sql.begin(), sql.end(), '('),
                           std::count(sql.begin(), sql.end(), ')'));
    }
  }

  void testEmptyFilterAddsNothing() {
    for (const Dialect dialect : kDialects) {
      const WhereClause empty = compiled(deals(), dialect, "{}");
      CPPUNIT_ASSERT_EQUAL(empty.tenantCondition(), empty.sql());
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, empty.params().size());
      // A null filter (none sent) too.
      WhereClause none(dialect, kTenant);
      deals().addFilter(none, rapport::Json(), lookup);
      CPPUNIT_ASSERT_EQUAL(none.tenantCondition(), none.sql());
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, none.params().size());
    }
  }

  void testOneHopThroughAReference() {
    for (const Dialect dialect : kDialects) {
      const WhereClause industry =
          compiled(contacts(), dialect, R"({"company.industry":"retail"})");
      const std::string added = addedSql(industry);
      // A semi-join: the contact's reference column against the companies
      // table's ids, filtered on the company's own declared column.
      CPPUNIT_ASSERT_MESSAGE(added, has(added, "crm_company_id"));
      CPPUNIT_ASSERT_MESSAGE(added, has(added, "crm_companies"));
      CPPUNIT_ASSERT_MESSAGE(added, has(added, "industry"));
      CPPUNIT_ASSERT(bindsText(industry, "retail"));
      // The referenced rows are the tenant's own: the tenant is bound again.
      std::size_t tenants = 0;
      for (const rapport::Value& value : industry.params()) {
        tenants +=
            std::holds_alternative<std::string>(value.variant()) && value.asString() == kTenant;
      }
      CPPUNIT_ASSERT_MESSAGE(industry.sql(), tenants >= 2);
      CPPUNIT_ASSERT_MESSAGE(added, has(added, "company_id = ?"));

      // Operators of the target's kinds work through the hop.
      const WhereClause revenue =
          compiled(contacts(), dialect, R"({"company.annual_revenue":{"gte":1000000}})");
      CPPUNIT_ASSERT(bindsInteger(revenue, 1000000));
      const WhereClause size =
          compiled(contacts(), dialect, R"({"company.size":{"in":["small","large"]}})");
      CPPUNIT_ASSERT(bindsText(size, "small") && bindsText(size, "large"));
      compiled(contacts(), dialect, R"({"company.tags":{"contains":"Retail"}})");

      // Deals: contact.email and company.name.
      const WhereClause email = compiled(deals(), dialect, R"({"contact.email":"a@b.io"})");
      CPPUNIT_ASSERT_MESSAGE(email.sql(), has(addedSql(email), "contacts"));
      CPPUNIT_ASSERT_MESSAGE(email.sql(), has(addedSql(email), "contact_id"));
      CPPUNIT_ASSERT(bindsText(email, "a@b.io"));
      const WhereClause name =
          compiled(deals(), dialect, R"({"company.name":{"starts_with":"Acme"}})");
      CPPUNIT_ASSERT_MESSAGE(name.sql(), has(addedSql(name), "crm_companies"));
      CPPUNIT_ASSERT(bindsTextContaining(name, "acme"));
      // Both hops in one filter, nested.
      compiled(deals(), dialect,
               R"({"or":[{"contact.email":{"null":true}},{"not":{"company.name":"Acme"}}]})");
    }
  }

  void testOneHopAsksTheLookupForTheTarget() {
    std::vector<std::string> asked;
    const rapport::RecordQuery::SchemaLookup recording =
        [&asked](const std::string& recordType) -> const rapport::RecordQuery* {
      asked.push_back(recordType);
      return lookup(recordType);
    };
    WhereClause where(Dialect::SQLite, kTenant);
    deals().addFilter(where, rapport::Json::parse(R"({"contact.email":"a@b.io"})"), recording);
    CPPUNIT_ASSERT(!asked.empty());
    for (const std::string& type : asked) CPPUNIT_ASSERT_EQUAL(std::string("contact"), type);
    assertBound(where, where.sql());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(FilterOperatorsTest);
