// The 422s of decisions §13, each with the exact error key: a filter that
// does not parse (errors.filter), an unknown field, hop or operator, an
// operator that does not fit the field's kind, a value of the wrong type
// (errors.filter.<path>), the limits (100 values in an in, 50 conditions, 5
// levels), sort (unknown, a 4th key, tags, repeated), fields, include,
// cursor, limit; the same refusals through POST .../search.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/query/QueryDataset.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;

class QueryErrorsTest : public QueryFixture {
  CPPUNIT_TEST_SUITE(QueryErrorsTest);
  CPPUNIT_TEST(testFilterThatDoesNotParse);
  CPPUNIT_TEST(testFilterThatIsNotAnObject);
  CPPUNIT_TEST(testUnknownField);
  CPPUNIT_TEST(testUnknownHopField);
  CPPUNIT_TEST(testUnknownOperator);
  CPPUNIT_TEST(testOperatorNotFittingTheKind);
  CPPUNIT_TEST(testOperatorNotFittingAnId);
  CPPUNIT_TEST(testValueOfTheWrongType);
  CPPUNIT_TEST(testPathOfANestedCondition);
  CPPUNIT_TEST(testInTakesAtMost100Values);
  CPPUNIT_TEST(testAtMost50Conditions);
  CPPUNIT_TEST(testAtMost5Levels);
  CPPUNIT_TEST(testSortErrors);
  CPPUNIT_TEST(testFieldsErrors);
  CPPUNIT_TEST(testIncludeErrors);
  CPPUNIT_TEST(testMalformedCursor);
  CPPUNIT_TEST(testLimitErrors);
  CPPUNIT_TEST(testSearchBodyErrors);
  CPPUNIT_TEST(testFiltersAreDataNeverSql);
  CPPUNIT_TEST_SUITE_END();

 public:
  HttpResult filtered(const std::string& path, const std::string& filterJson) {
    return get(path, "filter=" + urlEncode(filterJson));
  }
  // `count` single-field conditions, each in its own element of an and.
  static std::string conditions(int count) {
    std::string list;
    for (int i = 0; i < count; ++i) {
      list += (i ? "," : "") + std::string(R"({"title":"t)") + std::to_string(i) + R"("})";
    }
    return R"({"and":[)" + list + "]}";
  }
  // `depth` combinators nested around one condition: not, or, not, or...
  static std::string nested(int depth) {
    std::string filter = R"({"title":"x"})";
    for (int i = 0; i < depth; ++i) {
      filter = i % 2 == 0 ? R"({"not":)" + filter + "}" : R"({"or":[)" + filter + "]}";
    }
    return filter;
  }

  void testFilterThatDoesNotParse() {
    for (const char* bad : {"{", "{\"value\":}", "not json", "{\"value\":1}}", "{'value':1}"}) {
      QUERY_ASSERT_ERROR_KEY(filtered(kDeals, bad), "filter");
    }
  }

  void testFilterThatIsNotAnObject() {
    for (const char* bad : {"[]", "1", "\"value\"", "true"}) {
      QUERY_ASSERT_ERROR_KEY(filtered(kDeals, bad), "filter");
    }
  }

  void testUnknownField() {
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"nope":1})"), "filter.nope");
    QUERY_ASSERT_ERROR_KEY(filtered(kContacts, R"({"password":{"eq":"x"}})"), "filter.password");
    // A column of the table that is no declared field is unknown too.
    QUERY_ASSERT_ERROR_KEY(filtered(kContacts, R"({"search_text":{"contains":"a"}})"),
                           "filter.search_text");
  }

  void testUnknownHopField() {
    QUERY_ASSERT_ERROR_KEY(filtered(kContacts, R"({"company.nope":"x"})"), "filter.company.nope");
    // One hop only.
    QUERY_ASSERT_ERROR_UNDER(filtered(kDeals, R"({"contact.company.industry":"Retail"})"),
                             "filter.contact.company");
  }

  void testUnknownOperator() {
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"between":[1,2]}})"),
                           "filter.value.between");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"GTE":1}})"), "filter.value.GTE");
  }

  void testOperatorNotFittingTheKind() {
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"contains":"1"}})"),
                           "filter.value.contains");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"status":{"starts_with":"o"}})"),
                           "filter.status.starts_with");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"tags":{"gt":"a"}})"), "filter.tags.gt");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"tags":{"eq":"a"}})"), "filter.tags.eq");
    QUERY_ASSERT_ERROR_KEY(filtered(kActivities, R"({"scheduled_at":{"starts_with":"2026"}})"),
                           "filter.scheduled_at.starts_with");
  }

  // record_query.h: an id takes eq, ne, in, nin and null, compared exactly.
  void testOperatorNotFittingAnId() {
    QUERY_ASSERT_ERROR_KEY(filtered(kContacts, R"({"company_id":{"contains":"comp"}})"),
                           "filter.company_id.contains");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"owner_id":{"starts_with":"user_"}})"),
                           "filter.owner_id.starts_with");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"id":{"gt":"deal_"}})"), "filter.id.gt");
  }

  void testValueOfTheWrongType() {
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"gte":"abc"}})"), "filter.value.gte");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"gte":"100"}})"), "filter.value.gte");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"lt":1.5}})"), "filter.value.lt");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"in":5}})"), "filter.value.in");
    QUERY_ASSERT_ERROR_UNDER(filtered(kDeals, R"({"value":{"in":[1,"2"]}})"), "filter.value.in");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"value":{"null":"yes"}})"), "filter.value.null");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"title":{"eq":5}})"), "filter.title.eq");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"title":{"contains":["a"]}})"),
                           "filter.title.contains");
    QUERY_ASSERT_ERROR_KEY(filtered(kContacts, R"({"tags":{"contains":7}})"),
                           "filter.tags.contains");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"and":{"title":"x"}})"), "filter.and");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"or":"x"})"), "filter.or");
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"not":[]})"), "filter.not");
    QUERY_ASSERT_ERROR_KEY(filtered(kActivities, R"({"scheduled_at":{"gte":"soon"}})"),
                           "filter.scheduled_at.gte");
  }

  // The path names where a nested condition sits.
  void testPathOfANestedCondition() {
    const HttpResult result =
        filtered(kDeals, R"({"or":[{"status":"open"},{"value":{"gte":"abc"}}]})");
    const Json body = E2E_ASSERT_ERROR(422, result);
    bool named = false;  // "filter.or.1.value.gte", "filter.or[1].value.gte"...
    for (const auto& member : body["errors"].asObject()) {
      const std::string& key = member.first;
      const std::string tail = ".value.gte";
      named = named || (key.rfind("filter.or", 0) == 0 && key.size() > tail.size() &&
                        key.compare(key.size() - tail.size(), tail.size(), tail) == 0);
    }
    CPPUNIT_ASSERT_MESSAGE(describe(result), named);
  }

  void testInTakesAtMost100Values() {
    Json values = Json::array();
    for (int i = 0; i < 100; ++i) values.push("title " + std::to_string(i));
    E2E_ASSERT_DATA(
        200, filtered(kDeals, Json::object({{"title", Json::object({{"in", values}})}}).dump()));
    values.push("one too many");
    QUERY_ASSERT_ERROR_KEY(
        filtered(kDeals, Json::object({{"title", Json::object({{"in", values}})}}).dump()),
        "filter.title.in");
    QUERY_ASSERT_ERROR_KEY(
        filtered(kDeals, Json::object({{"title", Json::object({{"nin", values}})}}).dump()),
        "filter.title.nin");
  }

  void testAtMost50Conditions() {
    E2E_ASSERT_DATA(200, filtered(kDeals, conditions(50)));
    QUERY_ASSERT_ERROR_UNDER(filtered(kDeals, conditions(51)), "filter");
  }

  // Four combinators inside the top level are within 5 levels however the
  // top level is counted; six are past them either way.
  void testAtMost5Levels() {
    E2E_ASSERT_DATA(200, filtered(kDeals, nested(4)));
    QUERY_ASSERT_ERROR_UNDER(filtered(kDeals, nested(6)), "filter");
    QUERY_ASSERT_ERROR_UNDER(filtered(kDeals, nested(40)), "filter");
  }

  void testSortErrors() {
    for (const char* bad : {"nope", "-nope", "value,status,title,probability", "tags", "-tags",
                            "value,-value", "", ",", "-", "company.name"}) {
      QUERY_ASSERT_ERROR_KEY(get(kDeals, std::string("sort=") + urlEncode(bad)), "sort");
    }
    QUERY_ASSERT_ERROR_KEY(get(kContacts, "sort=tags"), "sort");
    QUERY_ASSERT_ERROR_KEY(get(kCompanies, "sort=name,industry,size,phone"), "sort");
    // Three keys are fine.
    E2E_ASSERT_DATA(200, get(kDeals, "sort=status,-value,title"));
  }

  void testFieldsErrors() {
    for (const char* bad : {"nope", "title,nope", "password", "company.name"}) {
      QUERY_ASSERT_ERROR_KEY(get(kDeals, std::string("fields=") + urlEncode(bad)), "fields");
    }
    QUERY_ASSERT_ERROR_KEY(get(kContacts, "fields=name,tenant_id"), "fields");
  }

  void testIncludeErrors() {
    QUERY_ASSERT_ERROR_KEY(get(kContacts, "include=nope"), "include");
    QUERY_ASSERT_ERROR_KEY(get(kContacts, "include=company,nope"), "include");
    QUERY_ASSERT_ERROR_KEY(get(kContacts, "include=company_id"), "include");
    QUERY_ASSERT_ERROR_KEY(get(kActivities, "include=company"), "include");
    QUERY_ASSERT_ERROR_KEY(get(kDeals, "include=related"), "include");
  }

  void testMalformedCursor() {
    for (const char* bad : {"abc", "x", "%00", "eyJpZCI6ImRlYWxfeCJ9", "-----"}) {
      QUERY_ASSERT_ERROR_KEY(get(kDeals, std::string("limit=5&cursor=") + urlEncode(bad)),
                             "cursor");
    }
    // A real cursor with one character changed.
    std::string cursor = firstCursor(*client_, token_, kDeals, "sort=value", 2);
    const std::size_t middle = cursor.size() / 2;
    cursor[middle] = cursor[middle] == 'A' ? 'B' : 'A';
    QUERY_ASSERT_ERROR_KEY(get(kDeals, "sort=value&limit=2&cursor=" + urlEncode(cursor)), "cursor");
    // A real cursor cut short.
    const std::string whole = firstCursor(*client_, token_, kDeals, "sort=value", 2);
    QUERY_ASSERT_ERROR_KEY(
        get(kDeals, "sort=value&limit=2&cursor=" + urlEncode(whole.substr(0, whole.size() - 4))),
        "cursor");
  }

  void testLimitErrors() {
    for (const char* bad : {"0", "101", "-1", "abc", "1.5", ""}) {
      QUERY_ASSERT_ERROR_KEY(get(kDeals, std::string("limit=") + bad), "limit");
    }
    for (const char* bad : {"yes", "1", "TRUE", ""}) {
      QUERY_ASSERT_ERROR_KEY(get(kDeals, std::string("limit=5&count=") + bad), "count");
    }
    E2E_ASSERT_DATA(200, get(kDeals, "limit=1"));
    E2E_ASSERT_DATA(200, get(kDeals, "limit=100"));
  }

  void testSearchBodyErrors() {
    const auto searched = [&](const std::string& path, const std::string& body) {
      return client_->send("POST", path + "/search", body, bearer(token_));
    };
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"filter":{"value":{"between":[1,2]}}})"),
                           "filter.value.between");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"filter":{"nope":1}})"), "filter.nope");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"filter":"{}"})"), "filter");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"sort":"nope"})"), "sort");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"sort":["value","status","title","-id"]})"),
                           "sort");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"fields":["nope"]})"), "fields");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"include":["nope"]})"), "include");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"limit":0})"), "limit");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"limit":101})"), "limit");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"limit":"5"})"), "limit");
    QUERY_ASSERT_ERROR_KEY(searched(kDeals, R"({"cursor":"abc"})"), "cursor");
    // A body that is not a JSON object is malformed (400), as on every route.
    E2E_ASSERT_ERROR(400, searched(kDeals, "[1]"));
    E2E_ASSERT_ERROR(400, searched(kDeals, "{"));
  }

  // Values are bound and names looked up: SQL in either is inert.
  void testFiltersAreDataNeverSql() {
    const Dataset& d = dataset();
    for (const char* value :
         {"x' OR '1'='1", "x\" OR 1=1 --", "%' --", "'); DROP TABLE deals; --"}) {
      const Json body =
          E2E_ASSERT_DATA(200, filtered(kDeals, Json::object({{"title", value}}).dump()));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(value, std::string("[]"), body.dump());
      E2E_ASSERT_DATA(
          200,
          filtered(kDeals, Json::object({{"title", Json::object({{"contains", value}})}}).dump()));
    }
    QUERY_ASSERT_ERROR_KEY(filtered(kDeals, R"({"title) OR (1=1":"x"})"), "filter.title) OR (1=1");
    QUERY_ASSERT_ERROR_KEY(get(kDeals, "sort=" + urlEncode("title; DROP TABLE deals")), "sort");
    QUERY_ASSERT_ERROR_KEY(get(kDeals, "fields=" + urlEncode("title,(SELECT 1)")), "fields");
    // Everything is still there.
    CPPUNIT_ASSERT_EQUAL(d.deals().size(), listed(*client_, token_, kDeals, "").size());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryErrorsTest);
