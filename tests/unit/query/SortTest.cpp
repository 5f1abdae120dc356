// RecordQuery::sortOf (rapport/record_query.h, decisions §13): up to three
// keys, `-` for descending, ties broken on id in the last key's direction;
// text lower-cased and nullable columns coalesced (sort keys are NOT NULL),
// a declared sortExpression used as is; a 422 on "sort" for an unknown,
// unsortable or repeated field, or more than three.
#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <utility>
#include <vector>

#include "QueryTestSupport.h"
#include "rapport/pagination.h"

using rapport::RecordQuery;
using namespace rapport::test::query;

namespace {

using Strings = std::vector<std::string>;

struct Key {
  std::string expression;
  bool descending = false;
};

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The keys of "ORDER BY a DESC, lower(b) ASC, id ASC", split at the commas
// outside parentheses.
std::vector<Key> orderKeys(const std::string& orderBy) {
  const std::string prefix = "ORDER BY ";
  CPPUNIT_ASSERT_MESSAGE(orderBy, orderBy.starts_with(prefix));
  std::vector<std::string> parts;
  std::string part;
  int depth = 0;
  for (const char c : orderBy.substr(prefix.size())) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trimmed(part));
      part.clear();
    } else {
      part += c;
    }
  }
  parts.push_back(trimmed(part));
  std::vector<Key> keys;
  for (const std::string& text : parts) {
    const std::string low = lowered(text);
    if (low.ends_with(" desc")) {
      keys.push_back({trimmed(text.substr(0, text.size() - 5)), true});
    } else if (low.ends_with(" asc")) {
      keys.push_back({trimmed(text.substr(0, text.size() - 4)), false});
    } else {
      keys.push_back({text, false});
    }
  }
  return keys;
}

std::vector<Key> orderOf(const RecordQuery& query, const Strings& sort) {
  return orderKeys(rapport::orderByClause(query.sortOf(sort)));
}

std::string describe(const std::vector<Key>& keys) {
  std::string out;
  for (const Key& key : keys) {
    out += (out.empty() ? "" : ", ") + key.expression + (key.descending ? " DESC" : " ASC");
  }
  return out;
}

rapport::FieldErrors sortErrors(const RecordQuery& query, const Strings& sort) {
  try {
    query.sortOf(sort);
    return {};
  } catch (const rapport::Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
}

void assertSortRefused(const RecordQuery& query, const Strings& sort) {
  std::string asked;
  for (const std::string& key : sort) asked += "[" + key + "]";
  const rapport::FieldErrors errors = sortErrors(query, sort);
  CPPUNIT_ASSERT_MESSAGE(asked + " accepted", !errors.empty());
  CPPUNIT_ASSERT_MESSAGE(asked + ": " + keysOf(errors), errors.contains("sort"));
}

}  // namespace

class SortTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SortTest);
  CPPUNIT_TEST(testDefaultIsNewestFirst);
  CPPUNIT_TEST(testOneKeyEitherWay);
  CPPUNIT_TEST(testThreeKeysTieOnIdInTheLastDirection);
  CPPUNIT_TEST(testTextIsLowerCased);
  CPPUNIT_TEST(testNullableColumnsAreCoalesced);
  CPPUNIT_TEST(testDeclaredSortExpressionIsUsed);
  CPPUNIT_TEST(testDeclaredDefaultSort);
  CPPUNIT_TEST(testRefusals);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDefaultIsNewestFirst() {
    const std::vector<Key> keys = orderOf(deals(), {});
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(keys), std::size_t{2}, keys.size());
    CPPUNIT_ASSERT_MESSAGE(describe(keys), has(keys[0].expression, "created_at"));
    CPPUNIT_ASSERT(keys[0].descending);
    CPPUNIT_ASSERT_EQUAL(std::string("id"), keys[1].expression);
    CPPUNIT_ASSERT(keys[1].descending);
  }

  void testOneKeyEitherWay() {
    const std::vector<Key> down = orderOf(deals(), {"-value"});
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(down), std::size_t{2}, down.size());
    CPPUNIT_ASSERT_MESSAGE(describe(down), has(down[0].expression, "value"));
    CPPUNIT_ASSERT(down[0].descending && down[1].descending);
    CPPUNIT_ASSERT_EQUAL(std::string("id"), down[1].expression);
    const std::vector<Key> up = orderOf(deals(), {"value"});
    CPPUNIT_ASSERT_EQUAL(down[0].expression, up[0].expression);
    CPPUNIT_ASSERT(!up[0].descending && !up[1].descending);
    // Every sortable kind.
    for (const char* field :
         {"title", "status", "probability", "expected_close_date", "last_activity_at", "archived",
          "owner_id", "company_id", "updated_at", "created_at", "id"}) {
      const std::vector<Key> keys = orderOf(deals(), {std::string("-") + field});
      CPPUNIT_ASSERT_MESSAGE(field, keys.front().descending && keys.back().descending);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(field, std::string("id"), keys.back().expression);
    }
  }

  void testThreeKeysTieOnIdInTheLastDirection() {
    const std::vector<Key> keys = orderOf(deals(), {"-value", "title", "-created_at"});
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(keys), std::size_t{4}, keys.size());
    CPPUNIT_ASSERT_MESSAGE(describe(keys), has(keys[0].expression, "value") && keys[0].descending);
    CPPUNIT_ASSERT_MESSAGE(describe(keys), has(keys[1].expression, "title") && !keys[1].descending);
    CPPUNIT_ASSERT_MESSAGE(describe(keys),
                           has(keys[2].expression, "created_at") && keys[2].descending);
    CPPUNIT_ASSERT_MESSAGE(describe(keys), keys[3].expression == "id" && keys[3].descending);

    const std::vector<Key> mixed = orderOf(deals(), {"-value", "created_at"});
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(mixed), std::size_t{3}, mixed.size());
    CPPUNIT_ASSERT(mixed[0].descending && !mixed[1].descending && !mixed[2].descending);
    CPPUNIT_ASSERT_EQUAL(std::string("id"), mixed[2].expression);
  }

  void testTextIsLowerCased() {
    const std::vector<Key> keys = orderOf(contacts(), {"name"});
    CPPUNIT_ASSERT_MESSAGE(describe(keys), hasWord(keys[0].expression, "lower("));
    CPPUNIT_ASSERT_MESSAGE(describe(keys), has(keys[0].expression, "name"));
  }

  void testNullableColumnsAreCoalesced() {
    for (const char* field :
         {"expected_close_date", "probability", "owner_id", "last_activity_at"}) {
      const std::vector<Key> keys = orderOf(deals(), {field});
      CPPUNIT_ASSERT_MESSAGE(describe(keys), hasWord(keys[0].expression, "coalesce("));
      CPPUNIT_ASSERT_MESSAGE(describe(keys), has(keys[0].expression, field));
    }
    const std::vector<Key> email = orderOf(contacts(), {"-email"});
    CPPUNIT_ASSERT_MESSAGE(describe(email), hasWord(email[0].expression, "coalesce("));
    // A reference sorts on its declared column.
    const std::vector<Key> company = orderOf(contacts(), {"company_id"});
    CPPUNIT_ASSERT_MESSAGE(describe(company), has(company[0].expression, "crm_company_id"));
  }

  void testDeclaredSortExpressionIsUsed() {
    const RecordQuery query({.recordType = "thing",
                             .table = "things",
                             .fields = {{.name = "rank",
                                         .column = "rank",
                                         .kind = rapport::QueryKind::Number,
                                         .sortExpression = "coalesce(rank, 999)"},
                                        {.name = "hidden",
                                         .column = "hidden",
                                         .kind = rapport::QueryKind::Number,
                                         .sortable = false}}});
    const std::vector<Key> keys = orderOf(query, {"-rank"});
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(keys), std::string("coalesce(rank, 999)"),
                                 keys[0].expression);
    CPPUNIT_ASSERT(keys[0].descending);
    assertSortRefused(query, {"hidden"});
  }

  void testDeclaredDefaultSort() {
    const RecordQuery query({.recordType = "thing",
                             .table = "things",
                             .fields = {{.name = "name", .column = "name", .nullable = false}},
                             .defaultSort = "name"});
    const std::vector<Key> keys = orderOf(query, {});
    CPPUNIT_ASSERT_MESSAGE(describe(keys), has(keys[0].expression, "name"));
    CPPUNIT_ASSERT(!keys[0].descending && !keys.back().descending);
  }

  void testRefusals() {
    assertSortRefused(deals(), {"nope"});
    assertSortRefused(deals(), {"-nope"});
    assertSortRefused(deals(), {"tags"});
    assertSortRefused(deals(), {"-tags"});
    assertSortRefused(deals(), {"value", "title", "created_at", "status"});
    assertSortRefused(deals(), {"value", "-value"});
    assertSortRefused(deals(), {"title", "title"});
    assertSortRefused(deals(), {"-"});
    assertSortRefused(deals(), {""});
    assertSortRefused(deals(), {"--value"});
    assertSortRefused(deals(), {"+value"});
    assertSortRefused(deals(), {"Value"});
    assertSortRefused(deals(), {"value desc"});
    assertSortRefused(deals(), {"crm_company_id"});
    // Paths through a reference are filters, not sorts.
    assertSortRefused(contacts(), {"company.name"});
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SortTest);
