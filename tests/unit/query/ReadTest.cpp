// RecordQuery::read (a list's query string) and readBody (a POST .../search
// body), rapport/record_query.h and decisions §13: what each parameter
// becomes in the ListRequest, the defaults, cursor mode, and the 422 on each
// bad parameter by its name (filter, sort, fields, include, limit, cursor,
// count, page, per_page). The names in fields and include are checked by
// answer() (AnswerTest).
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <string>
#include <vector>

#include "QueryTestSupport.h"

using rapport::Json;
using rapport::ListRequest;
using namespace rapport::test::query;

namespace {

using Strings = std::vector<std::string>;

// The errors of reading the query string and then checking what read() left
// for later (the filter with addFilter, the sort with sortOf): a parameter
// may be refused by either, always under its own name.
rapport::FieldErrors listErrors(const rapport::RecordQuery& query,
                                std::map<std::string, std::string> parameters) {
  try {
    const ListRequest list = query.read(withQuery(std::move(parameters)));
    rapport::WhereClause where(rapport::Dialect::SQLite, kTenant);
    query.addFilter(where, list.filter, lookup);
    query.sortOf(list.sort);
    return {};
  } catch (const rapport::Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
}

void assertListRefusedOn(const rapport::RecordQuery& query,
                         std::map<std::string, std::string> parameters, const std::string& key) {
  std::string asked;
  for (const auto& [name, value] : parameters) asked += name + "=" + value + " ";
  const rapport::FieldErrors errors = listErrors(query, std::move(parameters));
  CPPUNIT_ASSERT_MESSAGE(asked + "accepted (expected a 422 on " + key + ")", !errors.empty());
  CPPUNIT_ASSERT_MESSAGE(asked + ": expected " + key + ", got " + keysOf(errors),
                         errors.contains(key));
}

rapport::FieldErrors bodyErrors(const rapport::RecordQuery& query, const std::string& body) {
  try {
    const ListRequest list = query.readBody(Json::parse(body));
    rapport::WhereClause where(rapport::Dialect::PostgreSQL, kTenant);
    query.addFilter(where, list.filter, lookup);
    query.sortOf(list.sort);
    return {};
  } catch (const rapport::Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
}

void assertBodyRefusedOn(const rapport::RecordQuery& query, const std::string& body,
                         const std::string& key) {
  const rapport::FieldErrors errors = bodyErrors(query, body);
  CPPUNIT_ASSERT_MESSAGE(body + " accepted (expected a 422 on " + key + ")", !errors.empty());
  CPPUNIT_ASSERT_MESSAGE(body + ": expected " + key + ", got " + keysOf(errors),
                         errors.contains(key));
}

}  // namespace

class ReadTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ReadTest);
  CPPUNIT_TEST(testDefaults);
  CPPUNIT_TEST(testEveryParameter);
  CPPUNIT_TEST(testLimitOrCursorAloneIsCursorMode);
  CPPUNIT_TEST(testPagesWithoutLimitOrCursor);
  CPPUNIT_TEST(testFilterThatDoesNotParse);
  CPPUNIT_TEST(testFilterThatIsNotAnObject);
  CPPUNIT_TEST(testBadLimits);
  CPPUNIT_TEST(testBadPages);
  CPPUNIT_TEST(testBadCursorAndCount);
  CPPUNIT_TEST(testBadSortThroughTheQueryString);
  CPPUNIT_TEST(testEachBadParameterIsNamed);
  CPPUNIT_TEST(testBodyEveryMember);
  CPPUNIT_TEST(testBodyIsAlwaysCursorMode);
  CPPUNIT_TEST(testBodyListsAsArraysOrCommaLists);
  CPPUNIT_TEST(testBodyRefusals);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDefaults() {
    const ListRequest list = deals().read(withQuery({}));
    CPPUNIT_ASSERT(list.filter.isNull());
    CPPUNIT_ASSERT(list.sort.empty());
    CPPUNIT_ASSERT(list.fields.empty());
    CPPUNIT_ASSERT(list.include.empty());
    CPPUNIT_ASSERT(!list.cursorMode);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{20}, list.limit);
    CPPUNIT_ASSERT(list.cursor.empty());
    CPPUNIT_ASSERT(!list.count);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, list.page.page);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{20}, list.page.perPage);
  }

  void testEveryParameter() {
    const ListRequest list = deals().read(withQuery({
        {"filter", R"({"value":{"gte":100000},"status":{"in":["open","won"]}})"},
        {"sort", "-value,created_at"},
        {"fields", "title,value"},
        {"include", "company,contact"},
        {"limit", "50"},
        {"cursor", "abc"},
        {"count", "true"},
    }));
    CPPUNIT_ASSERT(list.filter.isObject());
    CPPUNIT_ASSERT(list.filter ==
                   Json::parse(R"({"value":{"gte":100000},"status":{"in":["open","won"]}})"));
    CPPUNIT_ASSERT(list.sort == (Strings{"-value", "created_at"}));
    CPPUNIT_ASSERT(list.fields == (Strings{"title", "value"}));
    CPPUNIT_ASSERT(list.include == (Strings{"company", "contact"}));
    CPPUNIT_ASSERT(list.cursorMode);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{50}, list.limit);
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), list.cursor);
    CPPUNIT_ASSERT(list.count);
    // The bounds of limit.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, deals().read(withQuery({{"limit", "1"}})).limit);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{100}, deals().read(withQuery({{"limit", "100"}})).limit);
    CPPUNIT_ASSERT(!deals().read(withQuery({{"count", "false"}})).count);
  }

  void testLimitOrCursorAloneIsCursorMode() {
    const ListRequest limited = deals().read(withQuery({{"limit", "5"}}));
    CPPUNIT_ASSERT(limited.cursorMode);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, limited.limit);
    const ListRequest cursor = deals().read(withQuery({{"cursor", "xyz"}}));
    CPPUNIT_ASSERT(cursor.cursorMode);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{20}, cursor.limit);
    // Filters and sorts alone keep the numbered pages.
    CPPUNIT_ASSERT(!deals()
                        .read(withQuery({{"filter", R"({"status":"open"})"}, {"sort", "-value"}}))
                        .cursorMode);
  }

  void testPagesWithoutLimitOrCursor() {
    const ListRequest list = deals().read(withQuery({{"page", "3"}, {"per_page", "7"}}));
    CPPUNIT_ASSERT(!list.cursorMode);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, list.page.page);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, list.page.perPage);
  }

  void testFilterThatDoesNotParse() {
    for (const char* text :
         {"{", "status=open", "{\"status\":}", "{'status':'open'}", "{\"status\":\"open\"} x"}) {
      assertListRefusedOn(deals(), {{"filter", text}}, "filter");
    }
  }

  void testFilterThatIsNotAnObject() {
    for (const char* text : {"[]", "1", "\"open\"", "true"}) {
      assertListRefusedOn(deals(), {{"filter", text}}, "filter");
    }
  }

  void testBadLimits() {
    for (const char* limit : {"0", "101", "-1", "1.5", "abc", "", " 5", "99999999999999999999"}) {
      CPPUNIT_ASSERT_MESSAGE(limit, readErrors(deals(), {{"limit", limit}}).contains("limit"));
    }
  }

  void testBadPages() {
    CPPUNIT_ASSERT(readErrors(deals(), {{"page", "0"}}).contains("page"));
    CPPUNIT_ASSERT(readErrors(deals(), {{"per_page", "101"}}).contains("per_page"));
  }

  // The names in fields and include (an empty one too) are the
  // declaration's and the directory's, checked by answer() (AnswerTest).
  void testBadCursorAndCount() {
    CPPUNIT_ASSERT(readErrors(deals(), {{"cursor", ""}}).contains("cursor"));
    CPPUNIT_ASSERT(readErrors(deals(), {{"count", "yes"}}).contains("count"));
    CPPUNIT_ASSERT(readErrors(deals(), {{"count", "1"}}).contains("count"));
  }

  void testBadSortThroughTheQueryString() {
    assertListRefusedOn(deals(), {{"sort", "nope"}}, "sort");
    assertListRefusedOn(deals(), {{"sort", "tags"}}, "sort");
    assertListRefusedOn(deals(), {{"sort", "value,title,created_at,status"}}, "sort");
    assertListRefusedOn(deals(), {{"sort", "value,-value"}}, "sort");
    assertListRefusedOn(deals(), {{"sort", "-value,"}}, "sort");
    assertListRefusedOn(deals(), {{"sort", ",value"}}, "sort");
    CPPUNIT_ASSERT(listErrors(deals(), {{"sort", "-value,title,created_at"}}).empty());
  }

  void testEachBadParameterIsNamed() {
    const rapport::FieldErrors errors =
        readErrors(deals(), {{"limit", "0"}, {"cursor", ""}, {"count", "x"}, {"per_page", "0"}});
    for (const char* key : {"limit", "cursor", "count", "per_page"}) {
      CPPUNIT_ASSERT_MESSAGE(std::string(key) + " in " + keysOf(errors), errors.contains(key));
    }
  }

  void testBodyEveryMember() {
    const ListRequest list = deals().readBody(Json::parse(
        R"({"filter":{"status":"open"},"sort":"-value,title","fields":["title","value"],)"
        R"("include":["company"],"limit":50,"cursor":"abc","count":true})"));
    CPPUNIT_ASSERT(list.filter == Json::parse(R"({"status":"open"})"));
    CPPUNIT_ASSERT(list.sort == (Strings{"-value", "title"}));
    CPPUNIT_ASSERT(list.fields == (Strings{"title", "value"}));
    CPPUNIT_ASSERT(list.include == (Strings{"company"}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{50}, list.limit);
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), list.cursor);
    CPPUNIT_ASSERT(list.count);
    CPPUNIT_ASSERT(list.cursorMode);
  }

  void testBodyIsAlwaysCursorMode() {
    const ListRequest empty = deals().readBody(Json::object());
    CPPUNIT_ASSERT(empty.cursorMode);
    CPPUNIT_ASSERT(empty.filter.isNull() || empty.filter == Json::object());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{20}, empty.limit);
    CPPUNIT_ASSERT(!empty.count);
    CPPUNIT_ASSERT(empty.sort.empty());
  }

  void testBodyListsAsArraysOrCommaLists() {
    const ListRequest arrays = deals().readBody(
        Json::parse(R"({"sort":["-value","title"],"fields":["title"],"include":["contact"]})"));
    const ListRequest commas = deals().readBody(
        Json::parse(R"({"sort":"-value,title","fields":"title","include":"contact"})"));
    CPPUNIT_ASSERT(arrays.sort == (Strings{"-value", "title"}));
    CPPUNIT_ASSERT(commas.sort == arrays.sort);
    CPPUNIT_ASSERT(commas.fields == arrays.fields);
    CPPUNIT_ASSERT(commas.include == arrays.include);
  }

  void testBodyRefusals() {
    assertBodyRefusedOn(deals(), R"({"filter":"{\"status\":\"open\"}"})", "filter");
    assertBodyRefusedOn(deals(), R"({"filter":[{"status":"open"}]})", "filter");
    assertBodyRefusedOn(deals(), R"({"filter":{"status":{"gt":"open"}}})", "filter.status.gt");
    assertBodyRefusedOn(deals(), R"({"limit":0})", "limit");
    assertBodyRefusedOn(deals(), R"({"limit":101})", "limit");
    assertBodyRefusedOn(deals(), R"({"limit":"20"})", "limit");
    assertBodyRefusedOn(deals(), R"({"limit":2.5})", "limit");
    assertBodyRefusedOn(deals(), R"({"sort":5})", "sort");
    assertBodyRefusedOn(deals(), R"({"sort":["nope"]})", "sort");
    assertBodyRefusedOn(deals(), R"({"sort":["value","title","created_at","status"]})", "sort");
    assertBodyRefusedOn(deals(), R"({"fields":[5]})", "fields");
    assertBodyRefusedOn(deals(), R"({"include":[""]})", "include");
    assertBodyRefusedOn(deals(), R"({"include":{"company":true}})", "include");
    assertBodyRefusedOn(deals(), R"({"cursor":5})", "cursor");
    assertBodyRefusedOn(deals(), R"({"count":"yes"})", "count");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ReadTest);
