// QueryField::sideTable (rapport/record_query.h, SDK 9.0): a field whose
// values live in a side table, as custom fields do (custom_fields.h). Every
// condition is a semi-join on the side table's rows of that field and
// tenant; ne, nin and null: true are the NOT IN of their opposite, so a
// record without a row matches them; text compares lower-cased; a decimal
// binds micro-units; a Tags side field holds the option exactly.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "QueryTestSupport.h"

using rapport::Dialect;
using rapport::QueryField;
using rapport::QueryKind;
using rapport::RecordQuery;
using rapport::WhereClause;
using namespace rapport::test::query;

namespace side_table_test {

QueryField side(const std::string& key, QueryKind kind, const std::string& column) {
  QueryField f;
  f.name = "custom_fields." + key;
  f.column = column;
  f.kind = kind;
  f.sideTable = "custom_field_values";
  f.sideKey = "field_id = 'cf_" + key + "'";
  f.sortExpression = "coalesce((SELECT " + column +
                     " FROM custom_field_values WHERE field_id = 'cf_" + key +
                     "' AND record_id = leads.id), -9223372036854775807)";
  if (kind == QueryKind::Tags) f.sortable = false;
  if (kind == QueryKind::Enum) f.options = {"gold", "silver"};
  return f;
}

const RecordQuery& leads() {
  static const RecordQuery query({.recordType = "lead",
                                  .table = "leads",
                                  .fields = {{.name = "name", .column = "name"},
                                             side("score", QueryKind::Number, "v_num"),
                                             side("amount", QueryKind::Decimal, "v_num"),
                                             side("nick", QueryKind::Text, "v_text"),
                                             side("tier", QueryKind::Enum, "v_text"),
                                             side("labels", QueryKind::Tags, "v_text")}});
  return query;
}

std::string sideAddedSql(const WhereClause& where) {
  return where.sql().substr(where.tenantCondition().size());
}

const std::string kRows = "(SELECT record_id FROM custom_field_values WHERE field_id = ";

}  // namespace side_table_test

using namespace side_table_test;

class SideTableTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SideTableTest);
  CPPUNIT_TEST(testAComparisonIsASemiJoinOnTheFieldsRows);
  CPPUNIT_TEST(testNeNinAndNullTrueMatchRecordsWithoutARow);
  CPPUNIT_TEST(testTextComparesLowerCased);
  CPPUNIT_TEST(testDecimalBindsMicroUnits);
  CPPUNIT_TEST(testTagsHoldTheOptionExactly);
  CPPUNIT_TEST(testOperatorsFollowTheKind);
  CPPUNIT_TEST(testSortPutsRecordsWithoutAValueLast);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testAComparisonIsASemiJoinOnTheFieldsRows() {
    for (const Dialect dialect : kDialects) {
      const WhereClause where =
          compiled(leads(), dialect, R"({"custom_fields.score":{"gte":10,"lt":20}})");
      const std::string sql = sideAddedSql(where);
      CPPUNIT_ASSERT_MESSAGE(sql, has(sql, "id IN " + kRows + "'cf_score' AND v_num >= ?)"));
      CPPUNIT_ASSERT_MESSAGE(sql, has(sql, "id IN " + kRows + "'cf_score' AND v_num < ?)"));
      // The tenant's condition, and each value (the field id is the tenant's).
      CPPUNIT_ASSERT(bindsText(where, kTenant));
      CPPUNIT_ASSERT(bindsInteger(where, 10));
      CPPUNIT_ASSERT(bindsInteger(where, 20));
      assertBound(where, sql);
    }
  }

  void testNeNinAndNullTrueMatchRecordsWithoutARow() {
    for (const Dialect dialect : kDialects) {
      const std::string ne =
          sideAddedSql(compiled(leads(), dialect, R"({"custom_fields.score":{"ne":3}})"));
      CPPUNIT_ASSERT_MESSAGE(ne, has(ne, "id NOT IN " + kRows + "'cf_score' AND v_num = ?)"));
      const std::string nin =
          sideAddedSql(compiled(leads(), dialect, R"({"custom_fields.tier":{"nin":["gold"]}})"));
      CPPUNIT_ASSERT_MESSAGE(nin, has(nin, "id NOT IN " + kRows + "'cf_tier' AND v_text IN (?))"));
      const std::string unset =
          sideAddedSql(compiled(leads(), dialect, R"({"custom_fields.score":null})"));
      CPPUNIT_ASSERT_MESSAGE(
          unset, has(unset, "id NOT IN " + kRows + "'cf_score' AND v_num IS NOT NULL)"));
      const std::string set =
          sideAddedSql(compiled(leads(), dialect, R"({"custom_fields.score":{"null":false}})"));
      CPPUNIT_ASSERT_MESSAGE(set, has(set, "id IN " + kRows + "'cf_score' AND v_num IS NOT NULL)"));
      CPPUNIT_ASSERT_MESSAGE(set, !has(set, "NOT IN"));
    }
  }

  void testTextComparesLowerCased() {
    for (const Dialect dialect : kDialects) {
      const WhereClause eq = compiled(leads(), dialect, R"({"custom_fields.nick":"AdA"})");
      CPPUNIT_ASSERT(bindsText(eq, "ada"));
      CPPUNIT_ASSERT(!bindsText(eq, "AdA"));
      const WhereClause in =
          compiled(leads(), dialect, R"({"custom_fields.nick":{"in":["Bo","CY"]}})");
      CPPUNIT_ASSERT(bindsText(in, "bo"));
      CPPUNIT_ASSERT(bindsText(in, "cy"));
      // An enum's options are exact: no folding.
      CPPUNIT_ASSERT(
          bindsText(compiled(leads(), dialect, R"({"custom_fields.tier":"gold"})"), "gold"));
    }
  }

  void testDecimalBindsMicroUnits() {
    const WhereClause where =
        compiled(leads(), Dialect::SQLite, R"({"custom_fields.amount":{"gte":12.5,"lt":100}})");
    CPPUNIT_ASSERT(bindsInteger(where, 12'500'000));
    CPPUNIT_ASSERT(bindsInteger(where, 100'000'000));
    assertRefusedOn(leads(), R"({"custom_fields.amount":{"gte":"12"}})",
                    "filter.custom_fields.amount.gte");
  }

  void testTagsHoldTheOptionExactly() {
    const WhereClause where =
        compiled(leads(), Dialect::PostgreSQL, R"({"custom_fields.labels":{"contains":"Vip"}})");
    const std::string sql = sideAddedSql(where);
    CPPUNIT_ASSERT_MESSAGE(sql, has(sql, "id IN " + kRows + "'cf_labels' AND v_text = ?)"));
    CPPUNIT_ASSERT(bindsText(where, "Vip"));
    assertRefusedOn(leads(), R"({"custom_fields.labels":{"eq":"Vip"}})",
                    "filter.custom_fields.labels.eq");
  }

  void testOperatorsFollowTheKind() {
    assertRefusedOn(leads(), R"({"custom_fields.score":{"contains":"1"}})",
                    "filter.custom_fields.score.contains");
    assertRefusedOn(leads(), R"({"custom_fields.tier":"bronze"})", "filter.custom_fields.tier");
    assertRefusedOn(leads(), R"({"custom_fields.nope":1})", "filter.custom_fields.nope");
    assertAccepted(leads(), R"({"custom_fields.nick":{"starts_with":"a","contains":"b"}})");
  }

  void testSortPutsRecordsWithoutAValueLast() {
    // Two keys: the rank (records without a value last, in either
    // direction), then the value in the direction asked.
    const rapport::Sort sort = leads().sortOf({"-custom_fields.score"});
    CPPUNIT_ASSERT(!sort.descending);
    CPPUNIT_ASSERT_MESSAGE(sort.column, has(sort.column, "CASE WHEN EXISTS"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, sort.then.size());
    CPPUNIT_ASSERT(sort.then[0].descending);
    CPPUNIT_ASSERT_MESSAGE(sort.then[0].column,
                           has(sort.then[0].column, "FROM custom_field_values"));
    CPPUNIT_ASSERT(!leads().sortOf({"custom_fields.score"}).then[0].descending);
    CPPUNIT_ASSERT_THROW(leads().sortOf({"custom_fields.labels"}), rapport::Error);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SideTableTest);
