// Custom fields in the query surface (decisions §13 and §14): filters by
// custom_fields.<key> with each type's operators (select eq/ne/in/nin, number
// and date ranges, boolean, null, multi_select contains, text contains and
// starts_with without regard to case), and/or/not over them; sort by a
// number field both ways with cursor paging; ?search= over text values; the
// 422s (unknown key, an operator the type lacks, sorting a multi_select).
//
// One company, created once, contacts oldest first:
//   one    stage lead      score 10   renewal 2027-01-10  vip true   segments [a,b]  nick "Alpha
//   Dog" two    stage customer  score 20   renewal 2027-02-10  vip false  segments [b]    nick
//   "beta"
//          site https://zebra.example
//   three  stage customer  score 30   renewal 2027-03-10  vip true   segments [c]    nick
//   "ALPHABET" four   (nothing set) five   stage churned   score 20   renewal 2026-12-31  vip false
//   (no segments)   nick "gamma alpha" six    stage lead      score -5   (nothing else)
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;
using rapport::e2e::query::byId;
using rapport::e2e::query::concat;
using rapport::e2e::query::listed;
using rapport::e2e::query::walk;

namespace {

struct Dataset {
  Account account;
  std::string one, two, three, four, five, six;
  Ids all() const { return {one, two, three, four, five, six}; }
};

const Dataset& dataset() {
  static const Dataset data = [] {
    HttpClient client(customFieldsServer().port());
    Dataset d;
    d.account = registerUser(client, "cf-query");
    const std::string& token = d.account.token;
    defineField(client, token, kContacts,
                fieldBody("stage", "select",
                          Json::object({{"options", optionsOf({"lead", "customer", "churned"})}})));
    defineField(client, token, kContacts, fieldBody("score", "number"));
    defineField(client, token, kContacts, fieldBody("renewal", "date"));
    defineField(client, token, kContacts, fieldBody("vip", "boolean"));
    defineField(client, token, kContacts,
                fieldBody("segments", "multi_select",
                          Json::object({{"options", optionsOf({"a", "b", "c"})}})));
    defineField(client, token, kContacts, fieldBody("nick", "text"));
    defineField(client, token, kContacts, fieldBody("site", "url"));
    const auto contact = [&](const std::string& name, Json values) {
      return createContact(client, token, contactWith(name, std::move(values)))["id"].asString();
    };
    d.one = contact("One", Json::object({{"stage", "lead"},
                                         {"score", 10},
                                         {"renewal", "2027-01-10"},
                                         {"vip", true},
                                         {"segments", Json::Array{"a", "b"}},
                                         {"nick", "Alpha Dog"}}));
    d.two = contact("Two", Json::object({{"stage", "customer"},
                                         {"score", 20},
                                         {"renewal", "2027-02-10"},
                                         {"vip", false},
                                         {"segments", Json::Array{"b"}},
                                         {"nick", "beta"},
                                         {"site", "https://zebra.example"}}));
    d.three = contact("Three", Json::object({{"stage", "customer"},
                                             {"score", 30},
                                             {"renewal", "2027-03-10"},
                                             {"vip", true},
                                             {"segments", Json::Array{"c"}},
                                             {"nick", "ALPHABET"}}));
    d.four = contact("Four", Json::object());
    d.five = contact("Five", Json::object({{"stage", "churned"},
                                           {"score", 20},
                                           {"renewal", "2026-12-31"},
                                           {"vip", false},
                                           {"nick", "gamma alpha"}}));
    d.six = contact("Six", Json::object({{"stage", "lead"}, {"score", -5}}));
    return d;
  }();
  return data;
}

}  // namespace

class CfQueryTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfQueryTest);
  CPPUNIT_TEST(testSelect);
  CPPUNIT_TEST(testNeMatchesUnsetRecords);
  CPPUNIT_TEST(testNumberRange);
  CPPUNIT_TEST(testDateRange);
  CPPUNIT_TEST(testBoolean);
  CPPUNIT_TEST(testNull);
  CPPUNIT_TEST(testMultiSelectContains);
  CPPUNIT_TEST(testTextContainsAndStartsWith);
  CPPUNIT_TEST(testCombinators);
  CPPUNIT_TEST(testSortByNumberWithCursor);
  CPPUNIT_TEST(testSortDescendingWithCursor);
  CPPUNIT_TEST(testSortOnMultiSelectIs422);
  CPPUNIT_TEST(testSearchMatchesTextValues);
  CPPUNIT_TEST(testSearchEndpoint);
  CPPUNIT_TEST(testFilterErrors);
  CPPUNIT_TEST_SUITE_END();

 public:
  // The dataset's company for every test (no new account each time).
  void setUp() override {
    client_ = std::make_unique<HttpClient>(customFieldsServer().port());
    owner_ = dataset().account;
    token_ = owner_.token;
  }

  // The ids `filter` selects, oldest first, with the filter in the failure.
  void assertMatching(const std::string& filter, const Ids& expected) {
    withRequest("filter " + filter, [&] { CPPUNIT_ASSERT(matching(filter) == expected); });
  }

  void testSelect() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.stage":"customer"})", {d.two, d.three});
    assertMatching(R"({"custom_fields.stage":{"eq":"lead"}})", {d.one, d.six});
    assertMatching(R"({"custom_fields.stage":{"in":["lead","churned"]}})", {d.one, d.five, d.six});
    assertMatching(R"({"custom_fields.stage":{"in":[]}})", {});
  }

  void testNeMatchesUnsetRecords() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.stage":{"ne":"customer"}})", {d.one, d.four, d.five, d.six});
    assertMatching(R"({"custom_fields.stage":{"nin":["customer","lead"]}})", {d.four, d.five});
    assertMatching(R"({"custom_fields.score":{"ne":20}})", {d.one, d.three, d.four, d.six});
    assertMatching(R"({"custom_fields.nick":{"ne":"BETA"}})",
                   {d.one, d.three, d.four, d.five, d.six});
  }

  void testNumberRange() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.score":{"gte":10,"lt":30}})", {d.one, d.two, d.five});
    assertMatching(R"({"custom_fields.score":{"gt":20}})", {d.three});
    assertMatching(R"({"custom_fields.score":{"lte":-5}})", {d.six});
    assertMatching(R"({"custom_fields.score":20})", {d.two, d.five});
    assertMatching(R"({"custom_fields.score":{"in":[10,30]}})", {d.one, d.three});
  }

  void testDateRange() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.renewal":{"gte":"2027-01-01","lt":"2027-03-01"}})",
                   {d.one, d.two});
    assertMatching(R"({"custom_fields.renewal":{"lt":"2027-01-01"}})", {d.five});
    assertMatching(R"({"custom_fields.renewal":{"gte":"2027-03-10"}})", {d.three});
    assertMatching(R"({"custom_fields.renewal":"2027-02-10"})", {d.two});
  }

  void testBoolean() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.vip":true})", {d.one, d.three});
    assertMatching(R"({"custom_fields.vip":{"eq":false}})", {d.two, d.five});
    assertMatching(R"({"custom_fields.vip":{"ne":true}})", {d.two, d.four, d.five, d.six});
  }

  void testNull() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.score":{"null":true}})", {d.four});
    assertMatching(R"({"custom_fields.score":null})", {d.four});
    assertMatching(R"({"custom_fields.vip":{"null":false}})", {d.one, d.two, d.three, d.five});
    assertMatching(R"({"custom_fields.site":{"null":false}})", {d.two});
    assertMatching(R"({"custom_fields.segments":{"null":false}})", {d.one, d.two, d.three});
    assertMatching(R"({"custom_fields.segments":{"null":true}})", {d.four, d.five, d.six});
  }

  void testMultiSelectContains() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.segments":{"contains":"b"}})", {d.one, d.two});
    assertMatching(R"({"custom_fields.segments":{"contains":"c"}})", {d.three});
    assertMatching(R"({"custom_fields.segments":{"contains":"a"}})", {d.one});
  }

  void testTextContainsAndStartsWith() {
    const Dataset& d = dataset();
    assertMatching(R"({"custom_fields.nick":{"contains":"ALPHA"}})", {d.one, d.three, d.five});
    assertMatching(R"({"custom_fields.nick":{"starts_with":"alpha"}})", {d.one, d.three});
    assertMatching(R"({"custom_fields.nick":{"starts_with":"GAMMA A"}})", {d.five});
    assertMatching(R"({"custom_fields.nick":"BETA"})", {d.two});
    assertMatching(R"({"custom_fields.site":{"contains":"ZEBRA"}})", {d.two});
  }

  void testCombinators() {
    const Dataset& d = dataset();
    assertMatching(R"({"or":[{"custom_fields.score":{"lt":0}},{"custom_fields.stage":"churned"}]})",
                   {d.five, d.six});
    assertMatching(R"({"not":{"custom_fields.stage":"lead"}})", {d.two, d.three, d.four, d.five});
    assertMatching(R"({"custom_fields.vip":true,"custom_fields.segments":{"contains":"c"}})",
                   {d.three});
    assertMatching(R"({"name":{"starts_with":"t"},"custom_fields.score":{"gte":25}})", {d.three});
  }

  // The unset records form one block at one end; the set ones are in order,
  // ties on id in the sort's direction; a walk of 2 a page gives the same
  // order as one page, every record once.
  void assertSorted(const std::string& sort, const Ids& setInOrder, const Ids& unset) {
    const Dataset& d = dataset();
    const std::string query = "sort=" + urlEncode(sort);
    const Ids page = listed(*client_, token_, kContacts, query);
    withRequest("GET " + kContacts + "?" + query, [&] {
      CPPUNIT_ASSERT(page == concat({unset, setInOrder}) || page == concat({setInOrder, unset}));
      const rapport::e2e::query::Walk walked = walk(*client_, token_, kContacts, query, 2);
      CPPUNIT_ASSERT(walked.ids == page);
      CPPUNIT_ASSERT_EQUAL(std::size_t(3), walked.metas.size());
      CPPUNIT_ASSERT(std::set<std::string>(walked.ids.begin(), walked.ids.end()).size() ==
                     d.all().size());
    });
  }

  void testSortByNumberWithCursor() {
    const Dataset& d = dataset();
    assertSorted("custom_fields.score", concat({{d.six, d.one}, byId({d.two, d.five}), {d.three}}),
                 {d.four});
    // A second key breaks the tie: five ("gamma alpha") before two ("beta").
    assertSorted("custom_fields.score,-custom_fields.nick", {d.six, d.one, d.five, d.two, d.three},
                 {d.four});
  }

  void testSortDescendingWithCursor() {
    const Dataset& d = dataset();
    assertSorted("-custom_fields.score",
                 concat({{d.three}, byId({d.two, d.five}, true), {d.one, d.six}}), {d.four});
    // A date, descending, with three unset records.
    assertSorted("-custom_fields.renewal", {d.three, d.two, d.one, d.five},
                 byId({d.four, d.six}, true));
  }

  void testSortOnMultiSelectIs422() {
    CF_ASSERT_ERROR_KEY(list("sort=custom_fields.segments"), "sort");
    CF_ASSERT_ERROR_KEY(list("sort=-custom_fields.segments"), "sort");
    CF_ASSERT_ERROR_KEY(list("sort=custom_fields.segments&limit=2"), "sort");
    CF_ASSERT_ERROR_KEY(list("sort=custom_fields.nope"), "sort");
  }

  void testSearchMatchesTextValues() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(listed(*client_, token_, kContacts, "search=alphabet&sort=created_at") ==
                   (Ids{d.three}));
    CPPUNIT_ASSERT(listed(*client_, token_, kContacts, "search=GAMMA&sort=created_at") ==
                   (Ids{d.five}));
    CPPUNIT_ASSERT(listed(*client_, token_, kContacts, "search=zebra&sort=created_at") ==
                   (Ids{d.two}));
    // A select's value is not text to search.
    CPPUNIT_ASSERT(listed(*client_, token_, kContacts, "search=churned&sort=created_at").empty());
  }

  void testSearchEndpoint() {
    const Dataset& d = dataset();
    const HttpResult result = rapport::e2e::query::search(
        *client_, token_, kContacts,
        Json::object({{"filter", Json::parse(R"({"custom_fields.score":{"gte":10}})")},
                      {"sort", "-custom_fields.score"},
                      {"limit", 10},
                      {"count", true}}));
    E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT(idsOf(result.json()) ==
                   concat({{d.three}, byId({d.two, d.five}, true), {d.one}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), result.json()["meta"]["total"].asInt());
  }

  void testFilterErrors() {
    const auto filtered = [&](const std::string& filter) {
      return list(filterParam(Json::parse(filter)));
    };
    CF_ASSERT_ERROR_KEY(filtered(R"({"custom_fields.nope":1})"), "filter.custom_fields.nope");
    CF_ASSERT_ERROR_KEY(filtered(R"({"or":[{"custom_fields.nope":1}]})"),
                        "filter.or.0.custom_fields.nope");
    CF_ASSERT_ERROR_UNDER(filtered(R"({"custom_fields.vip":{"gt":true}})"),
                          "filter.custom_fields.vip");
    CF_ASSERT_ERROR_UNDER(filtered(R"({"custom_fields.score":{"contains":"1"}})"),
                          "filter.custom_fields.score");
    CF_ASSERT_ERROR_UNDER(filtered(R"({"custom_fields.score":{"gte":"ten"}})"),
                          "filter.custom_fields.score");
    CF_ASSERT_ERROR_UNDER(filtered(R"({"custom_fields.renewal":{"gte":"2027-02-30"}})"),
                          "filter.custom_fields.renewal");
    CF_ASSERT_ERROR_UNDER(filtered(R"({"custom_fields.segments":{"gt":"a"}})"),
                          "filter.custom_fields.segments");
    CF_ASSERT_ERROR_UNDER(filtered(R"({"custom_fields.stage":{"contains":"le"}})"),
                          "filter.custom_fields.stage");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfQueryTest);
