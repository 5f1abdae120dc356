// POST /crm/<resource>/search (decisions §13): the filter, sort, fields,
// include, limit, cursor and count of the list as a JSON body, answered
// exactly as the cursor form of GET (same data, same meta), page after page;
// a cursor of one form continues the other; a filter too long for comfort in
// a URL (an `in` of 100 ids).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/query/QueryDataset.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;

class QuerySearchTest : public QueryFixture {
  CPPUNIT_TEST_SUITE(QuerySearchTest);
  CPPUNIT_TEST(testSearchAnswersAsTheCursorForm);
  CPPUNIT_TEST(testSearchWalksAsTheCursorForm);
  CPPUNIT_TEST(testCursorsCrossBetweenTheForms);
  CPPUNIT_TEST(testSortFieldsAndIncludeAsArraysOrCommaLists);
  CPPUNIT_TEST(testEmptyBodyIsTheFirstPage);
  CPPUNIT_TEST(testLongInOfIds);
  CPPUNIT_TEST(testEveryResourceHasSearch);
  CPPUNIT_TEST_SUITE_END();

 public:
  // POST .../search asserting 200; the whole body.
  Json searched(const std::string& path, const Json& body) {
    const HttpResult result = search(*client_, token_, path, body);
    E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    return result.json();
  }
  // The data and meta of two answers agree; cursors are compared by kind
  // (each answer seals its own).
  static void assertSameAnswer(const Json& listed, const Json& searched) {
    CPPUNIT_ASSERT_EQUAL(listed["data"].dump(), searched["data"].dump());
    CPPUNIT_ASSERT(keysOf(listed["meta"]) == keysOf(searched["meta"]));
    CPPUNIT_ASSERT_EQUAL(listed["meta"]["per_page"].dump(), searched["meta"]["per_page"].dump());
    CPPUNIT_ASSERT_EQUAL(listed["meta"]["next_cursor"].isNull(),
                         searched["meta"]["next_cursor"].isNull());
    if (listed["meta"].contains("total")) {
      CPPUNIT_ASSERT_EQUAL(listed["meta"]["total"].dump(), searched["meta"]["total"].dump());
    }
  }

  void testSearchAnswersAsTheCursorForm() {
    const Json filter = Json::parse(R"({"value":{"gte":100000},"status":{"in":["open","won"]}})");
    const Json listed =
        listBody(*client_, token_, kDeals, filterParam(filter) + "&sort=-value&limit=2&count=true");
    const Json body = searched(
        kDeals,
        Json::object({{"filter", filter}, {"sort", "-value"}, {"limit", 2}, {"count", true}}));
    QUERY_ASSERT_CURSOR_META(body["meta"], 2, true);
    assertSameAnswer(listed, body);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), body["meta"]["total"].asInt());
  }

  void testSearchWalksAsTheCursorForm() {
    const Json filter =
        Json::parse(R"({"or":[{"tags":{"null":false}},{"owner_id":{"null":true}}]})");
    const std::string query = filterParam(filter) + "&sort=-job_title,name";
    const Walk walked = walk(*client_, token_, kContacts, query, 2);
    Ids all;
    std::string cursor;
    for (std::size_t page = 0; page < walked.metas.size(); ++page) {
      Json request = Json::object({{"filter", filter}, {"sort", "-job_title,name"}, {"limit", 2}});
      if (!cursor.empty()) request.set("cursor", cursor);
      const Json body = searched(kContacts, request);
      QUERY_ASSERT_CURSOR_META(body["meta"], 2, false);
      for (const std::string& id : idsOf(body)) all.push_back(id);
      CPPUNIT_ASSERT_EQUAL(walked.metas[page]["next_cursor"].isNull(),
                           body["meta"]["next_cursor"].isNull());
      if (body["meta"]["next_cursor"].isNull()) break;
      cursor = body["meta"]["next_cursor"].asString();
    }
    CPPUNIT_ASSERT(all == walked.ids);
    CPPUNIT_ASSERT_EQUAL(std::size_t(4), all.size());  // all but dan and fay
  }

  // The cursor is sealed for the filter and sort, whichever form carried them.
  void testCursorsCrossBetweenTheForms() {
    const Json filter = Json::object({{"status", Json::object({{"ne", "lost"}})}});
    const std::string query = filterParam(filter) + "&sort=probability&limit=2";
    const Json first = listBody(*client_, token_, kDeals, query);
    const Json second =
        listBody(*client_, token_, kDeals,
                 query + "&cursor=" + urlEncode(first["meta"]["next_cursor"].asString()));
    // GET's cursor through search.
    const Json viaSearch =
        searched(kDeals, Json::object({{"filter", filter},
                                       {"sort", "probability"},
                                       {"limit", 2},
                                       {"cursor", first["meta"]["next_cursor"]}}));
    CPPUNIT_ASSERT_EQUAL(second["data"].dump(), viaSearch["data"].dump());
    // Search's cursor through GET.
    const Json searchFirst =
        searched(kDeals, Json::object({{"filter", filter}, {"sort", "probability"}, {"limit", 2}}));
    const Json viaGet =
        listBody(*client_, token_, kDeals,
                 query + "&cursor=" + urlEncode(searchFirst["meta"]["next_cursor"].asString()));
    CPPUNIT_ASSERT_EQUAL(second["data"].dump(), viaGet["data"].dump());
  }

  void testSortFieldsAndIncludeAsArraysOrCommaLists() {
    const std::string query =
        "sort=status,-value&fields=title,value,contact_id&include=contact&limit=10";
    const Json listed = listBody(*client_, token_, kDeals, query);
    assertSameAnswer(
        listed,
        searched(kDeals, Json::object({{"sort", Json::Array{"status", "-value"}},
                                       {"fields", Json::Array{"title", "value", "contact_id"}},
                                       {"include", Json::Array{"contact"}},
                                       {"limit", 10}})));
    assertSameAnswer(listed, searched(kDeals, Json::object({{"sort", "status,-value"},
                                                            {"fields", "title,value,contact_id"},
                                                            {"include", "contact"},
                                                            {"limit", 10}})));
  }

  // A search is always the cursor form: no body members, the first 20.
  void testEmptyBodyIsTheFirstPage() {
    const Json listed = listBody(*client_, token_, kActivities, "limit=20");
    const Json body = searched(kActivities, Json::object());
    QUERY_ASSERT_CURSOR_META(body["meta"], 20, false);
    assertSameAnswer(listed, body);
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), body["data"].size());
  }

  // 100 ids, three of them real: the body form and the URL form agree.
  void testLongInOfIds() {
    const Dataset& d = dataset();
    Json ids = Json::Array{d.erin, d.alice, d.carol};
    while (ids.size() < 100) ids.push("cont_" + randomHex(26));
    const Json filter = Json::object({{"id", Json::object({{"in", ids}})}});
    const Json body = searched(kContacts, Json::object({{"filter", filter}, {"sort", "name"}}));
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.alice, d.carol, d.erin}));
    const Json listed =
        listBody(*client_, token_, kContacts, filterParam(filter) + "&sort=name&limit=20");
    assertSameAnswer(listed, body);
    // And on deals, 100 contact ids.
    Json contacts = Json::Array{d.alice};
    while (contacts.size() < 100) contacts.push("cont_" + randomHex(26));
    const Json deals = searched(
        kDeals,
        Json::object({{"filter", Json::object({{"contact_id", Json::object({{"in", contacts}})}})},
                      {"sort", "value"}}));
    CPPUNIT_ASSERT(idsOf(deals) == (Ids{d.renewal, d.engine}));
  }

  void testEveryResourceHasSearch() {
    const Dataset& d = dataset();
    const Json sorted = Json::object({{"sort", "created_at"}});
    CPPUNIT_ASSERT(idsOf(searched(kContacts, sorted)) == d.contacts());
    CPPUNIT_ASSERT(idsOf(searched(kCompanies, sorted)) == d.companies());
    CPPUNIT_ASSERT(idsOf(searched(kDeals, sorted)) == d.deals());
    CPPUNIT_ASSERT(idsOf(searched(kActivities, sorted)) == d.activities());
    // Search is a read: a token without the company's data sees none of it.
    const Account other = registerUser(*client_, "query-search-other");
    const HttpResult foreign = search(*client_, other.token, kDeals, sorted);
    E2E_ASSERT_DATA(200, foreign);
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), foreign.json()["data"].dump());
    E2E_ASSERT_ERROR(401, client_->post(kDeals + "/search", Json::object()));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QuerySearchTest);
