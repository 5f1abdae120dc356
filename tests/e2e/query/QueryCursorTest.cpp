// Cursor paging (decisions §13): a limit/cursor walk gives every record once,
// in the order of one big page, for filtered and sorted lists (ties, unset
// values); the meta is exactly {per_page, next_cursor} (null on the last
// page, even a full one) plus total with count=true; inserts and deletes
// between pages, before and after the cursor and of the anchor record itself,
// neither skip nor repeat a record that existed throughout; a cursor answers
// 422 on `cursor` in another tenant, with another filter or sort, or on
// another record type. Also: page/per_page lists unchanged with filter and
// sort, and sub-lists taking the same parameters.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <map>
#include <set>

#include "e2e/query/QueryDataset.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;

class QueryCursorTest : public QueryFixture {
  CPPUNIT_TEST_SUITE(QueryCursorTest);
  CPPUNIT_TEST(testWalkEqualsOneBigPage);
  CPPUNIT_TEST(testWalkThroughTheUnsetBlock);
  CPPUNIT_TEST(testWalkThroughNamesEqualButForCase);
  CPPUNIT_TEST(testMetaIsPerPageAndNextCursor);
  CPPUNIT_TEST(testCountAddsTheTotal);
  CPPUNIT_TEST(testFullLastPageHasNoNextCursor);
  CPPUNIT_TEST(testDefaultLimitIs20);
  CPPUNIT_TEST(testLimitMayChangeAlongTheWalk);
  CPPUNIT_TEST(testInsertsAndDeletesBetweenPages);
  CPPUNIT_TEST(testDeletingAnchorsInsideTheUnsetBlock);
  CPPUNIT_TEST(testCursorOfAnotherTenantIs422);
  CPPUNIT_TEST(testCursorWithAnotherFilterOrSortIs422);
  CPPUNIT_TEST(testCursorOfContactsOnDealsIs422);
  CPPUNIT_TEST(testCursorOfAnotherSubListIs422);
  CPPUNIT_TEST(testPagesUnchangedWithFilterAndSort);
  CPPUNIT_TEST(testSubListWithFilterAndCursor);
  CPPUNIT_TEST(testSubListWithSort);
  CPPUNIT_TEST_SUITE_END();

 public:
  // One page of 100 in cursor form (the "one big page"), asserting it is the last.
  Ids bigPage(const std::string& path, const std::string& query, const std::string& token = "") {
    const Json body = listBody(*client_, token.empty() ? token_ : token, path,
                               query + (query.empty() ? "" : "&") + "limit=100");
    QUERY_ASSERT_CURSOR_META(body["meta"], 100, false);
    CPPUNIT_ASSERT_MESSAGE(body.dump(), body["meta"]["next_cursor"].isNull());
    return idsOf(body);
  }

  void testWalkEqualsOneBigPage() {
    const Dataset& d = dataset();
    const std::vector<std::pair<std::string, std::string>> lists = {
        {kDeals, "sort=-value"},
        {kDeals, "sort=value,-status"},
        {kDeals, filterParam(Json::parse(R"({"status":{"in":["open","won"]}})")) +
                     "&sort=expected_close_date"},
        {kContacts, ""},
        {kContacts, "sort=-email"},
        {kContacts, filterParam(Json::parse(R"({"tags":{"null":false}})")) + "&sort=name"},
        {kCompanies, "sort=-annual_revenue,name"},
        {kActivities, "sort=scheduled_at,-type"},
    };
    for (const auto& [path, query] : lists) {
      const Ids all = bigPage(path, query);
      CPPUNIT_ASSERT_MESSAGE(path + "?" + query, !all.empty());
      for (const std::int64_t limit : {1, 2, 4}) {
        const Walk walked = walk(*client_, token_, path, query, limit);
        CPPUNIT_ASSERT_MESSAGE(path + "?" + query + " limit " + std::to_string(limit),
                               walked.ids == all);
      }
    }
    CPPUNIT_ASSERT(bigPage(kDeals, "sort=-value").size() == d.deals().size());
  }

  // Keys coalesced for unset values: a walk of one record a page crosses the
  // block of unset values (ties on id) in both directions.
  void testWalkThroughTheUnsetBlock() {
    const Dataset& d = dataset();
    for (const char* sort : {"job_title", "-job_title", "company_id,job_title", "-owner_id"}) {
      const std::string query = std::string("sort=") + urlEncode(sort);
      const Ids all = bigPage(kContacts, query);
      CPPUNIT_ASSERT_MESSAGE(sort, byId(all) == byId(d.contacts()));
      CPPUNIT_ASSERT_MESSAGE(sort, walk(*client_, token_, kContacts, query, 1).ids == all);
    }
    for (const char* sort : {"expected_close_date", "-contact_id", "-owner_id,-value"}) {
      const std::string query = std::string("sort=") + urlEncode(sort);
      const Ids all = bigPage(kDeals, query);
      CPPUNIT_ASSERT_MESSAGE(sort, walk(*client_, token_, kDeals, query, 1).ids == all);
    }
  }

  // Names sort without regard to case: "Same", "same" and "SAME" tie, and
  // the walk goes through the tie on id.
  void testWalkThroughNamesEqualButForCase() {
    const Account account = registerUser(*client_, "query-walk-case");
    Ids made;
    for (const char* name : {"Same", "same", "SAME", "Other", "samE"}) {
      made.push_back(
          createContact(*client_, account.token, Json::object({{"name", name}}))["id"].asString());
    }
    const Ids ties = byId({made[0], made[1], made[2], made[4]});
    CPPUNIT_ASSERT(bigPage(kContacts, "sort=name", account.token) == concat({{made[3]}, ties}));
    CPPUNIT_ASSERT(walk(*client_, account.token, kContacts, "sort=name", 1).ids ==
                   concat({{made[3]}, ties}));
    CPPUNIT_ASSERT(walk(*client_, account.token, kContacts, "sort=-name", 2).ids ==
                   concat({byId(ties, true), {made[3]}}));
  }

  void testMetaIsPerPageAndNextCursor() {
    Json body = listBody(*client_, token_, kDeals, "sort=value&limit=4");
    CPPUNIT_ASSERT_EQUAL(std::size_t(4), body["data"].size());
    QUERY_ASSERT_CURSOR_META(body["meta"], 4, false);
    CPPUNIT_ASSERT(body["meta"]["next_cursor"].isString());
    CPPUNIT_ASSERT(!body["meta"]["next_cursor"].asString().empty());
    body =
        listBody(*client_, token_, kDeals,
                 "sort=value&limit=4&cursor=" + urlEncode(body["meta"]["next_cursor"].asString()));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), body["data"].size());
    QUERY_ASSERT_CURSOR_META(body["meta"], 4, false);
    CPPUNIT_ASSERT(body["meta"]["next_cursor"].isNull());
    // A cursor alone (no limit) is the cursor form too, with the default limit.
    const std::string cursor = firstCursor(*client_, token_, kDeals, "sort=value", 1);
    body = listBody(*client_, token_, kDeals, "sort=value&cursor=" + urlEncode(cursor));
    QUERY_ASSERT_CURSOR_META(body["meta"], 20, false);
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), body["data"].size());
    // An empty list: no data, no cursor.
    body = listBody(*client_, token_, kDeals,
                    filterParam(Json::object({{"title", "none"}})) + "&limit=5");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    QUERY_ASSERT_CURSOR_META(body["meta"], 5, false);
    CPPUNIT_ASSERT(body["meta"]["next_cursor"].isNull());
  }

  void testCountAddsTheTotal() {
    Json body = listBody(*client_, token_, kDeals, "sort=value&limit=2&count=true");
    QUERY_ASSERT_CURSOR_META(body["meta"], 2, true);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(6), body["meta"]["total"].asInt());
    // The total is the filter's, on every page.
    const std::string filtered =
        filterParam(Json::parse(R"({"value":{"gte":100000}})")) + "&sort=value&limit=2&count=true";
    body = listBody(*client_, token_, kDeals, filtered);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), body["meta"]["total"].asInt());
    body = listBody(*client_, token_, kDeals,
                    filtered + "&cursor=" + urlEncode(body["meta"]["next_cursor"].asString()));
    QUERY_ASSERT_CURSOR_META(body["meta"], 2, true);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), body["meta"]["total"].asInt());
    // count=false is no count.
    body = listBody(*client_, token_, kDeals, "limit=2&count=false");
    QUERY_ASSERT_CURSOR_META(body["meta"], 2, false);
  }

  // The page that holds the last record is the last page: its next_cursor is
  // null even when it is full.
  void testFullLastPageHasNoNextCursor() {
    for (const std::int64_t limit : {2, 3, 6}) {
      const Walk walked = walk(*client_, token_, kDeals, "sort=title", limit);
      CPPUNIT_ASSERT_EQUAL(std::size_t(6 / limit), walked.metas.size());
    }
  }

  void testDefaultLimitIs20() {
    const Account account = registerUser(*client_, "query-default-limit");
    for (int i = 0; i < 21; ++i) {
      createCrmCompany(*client_, account.token,
                       Json::object({{"name", "Company " + std::to_string(100 + i)}}));
    }
    const std::string cursor = firstCursor(*client_, account.token, kCompanies, "sort=name", 1);
    const Json body =
        listBody(*client_, account.token, kCompanies, "sort=name&cursor=" + urlEncode(cursor));
    CPPUNIT_ASSERT_EQUAL(std::size_t(20), body["data"].size());
    CPPUNIT_ASSERT(body["meta"]["next_cursor"].isNull());
    const HttpResult searched = search(*client_, account.token, kCompanies, Json::object());
    E2E_ASSERT_DATA(200, searched);
    QUERY_ASSERT_CURSOR_META(searched.json()["meta"], 20, false);
    CPPUNIT_ASSERT_EQUAL(std::size_t(20), searched.json()["data"].size());
  }

  // A cursor is sealed for the filter and the sort, not the page size.
  void testLimitMayChangeAlongTheWalk() {
    const Ids all = bigPage(kDeals, "sort=-value");
    Json body = listBody(*client_, token_, kDeals, "sort=-value&limit=1");
    Ids seen = idsOf(body);
    body =
        listBody(*client_, token_, kDeals,
                 "sort=-value&limit=3&cursor=" + urlEncode(body["meta"]["next_cursor"].asString()));
    for (const std::string& id : idsOf(body)) seen.push_back(id);
    body =
        listBody(*client_, token_, kDeals,
                 "sort=-value&limit=2&cursor=" + urlEncode(body["meta"]["next_cursor"].asString()));
    for (const std::string& id : idsOf(body)) seen.push_back(id);
    CPPUNIT_ASSERT(body["meta"]["next_cursor"].isNull());
    CPPUNIT_ASSERT(seen == all);
  }

  // Ten tagged contacts "walk 00".."walk 09" (and untagged ones beside them),
  // walked three at a time by name. Between pages: a contact is inserted
  // before the cursor and one after it, the anchor (the last record served)
  // is deleted, a record not yet served is deleted, one already served too.
  void testInsertsAndDeletesBetweenPages() {
    const Account account = registerUser(*client_, "query-walk");
    std::map<std::string, std::string> ids;  // name -> id
    const auto add = [&](const std::string& name, bool tagged) {
      Json body = Json::object({{"name", name}});
      if (tagged) body.set("tags", Json::Array{"walk"});
      ids[name] = createContact(*client_, account.token, body)["id"].asString();
    };
    const auto remove = [&](const std::string& name) {
      E2E_ASSERT_DATA(200, client_->del(kContacts + "/" + ids.at(name), bearer(account.token)));
    };
    for (int i = 0; i < 10; ++i) {
      add("walk 0" + std::to_string(i), true);
      add("walk 0" + std::to_string(i) + " untagged", false);
    }
    const std::string query =
        filterParam(Json::parse(R"({"tags":{"contains":"WALK"}})")) + "&sort=name";
    const Walk walked =
        walk(*client_, account.token, kContacts, query, 3, [&](int page, const Ids&) {
          if (page == 0) {          // served 00 01 02
            add("walk 015", true);  // behind the cursor
            add("walk 055", true);  // ahead of it
            remove("walk 02");      // the anchor
            remove("walk 06");      // not served yet
            remove("walk 00");      // served
          } else if (page == 1) {   // served 03 04 05
            add("walk 000", true);
            add("walk 085", true);
            remove("walk 05");
            remove("walk 08");
          }
        });
    std::map<std::string, std::string> names;  // id -> name
    for (const auto& [name, id] : ids) names[id] = name;
    std::vector<std::string> served;
    std::string shown;
    for (const std::string& id : walked.ids) {
      served.push_back(names.at(id));
      shown += names.at(id) + "; ";
    }
    // In order, nothing twice; every record that existed throughout (and
    // those served before their deletion) once; nothing deleted before its
    // turn, nothing inserted behind the cursor.
    CPPUNIT_ASSERT_MESSAGE(shown, std::is_sorted(served.begin(), served.end()));
    CPPUNIT_ASSERT_MESSAGE(
        shown, std::set<std::string>(served.begin(), served.end()).size() == served.size());
    for (const char* name :
         {"walk 00", "walk 01", "walk 02", "walk 03", "walk 04", "walk 05", "walk 07", "walk 09"}) {
      CPPUNIT_ASSERT_MESSAGE(shown, contains(served, name));
    }
    for (const char* name : {"walk 06", "walk 08", "walk 015", "walk 000"}) {
      CPPUNIT_ASSERT_MESSAGE(shown, !contains(served, name));
    }
  }

  // Contacts without a job title share one sort value: inside that block the
  // keyset holds on id alone, and deleting each anchor as it is served loses
  // nothing, in both directions.
  void testDeletingAnchorsInsideTheUnsetBlock() {
    const Account account = registerUser(*client_, "query-walk-null");
    for (const std::string direction : {"job_title", "-job_title"}) {
      const std::string tag = direction[0] == '-' ? "down" : "up";
      for (int i = 0; i < 9; ++i) {
        Json body =
            Json::object({{"name", "Null " + std::to_string(i)}, {"tags", Json::Array{tag}}});
        if (i % 4 == 0) body.set("job_title", "Title " + std::to_string(i));
        createContact(*client_, account.token, body);
      }
      const std::string query =
          filterParam(Json::object({{"tags", Json::object({{"contains", tag}})}})) +
          "&sort=" + urlEncode(direction);
      const Ids before = bigPage(kContacts, query, account.token);
      CPPUNIT_ASSERT_EQUAL(std::size_t(9), before.size());
      const Walk walked =
          walk(*client_, account.token, kContacts, query, 2, [&](int, const Ids& served) {
            E2E_ASSERT_DATA(200,
                            client_->del(kContacts + "/" + served.back(), bearer(account.token)));
          });
      CPPUNIT_ASSERT_MESSAGE(direction, walked.ids == before);
    }
  }

  void testCursorOfAnotherTenantIs422() {
    const Account other = registerUser(*client_, "query-other-tenant");
    createCrmCompany(*client_, other.token, Json::object({{"name", "Other"}}));
    const std::string query = "sort=-value";
    const std::string cursor = firstCursor(*client_, token_, kDeals, query, 2);
    QUERY_ASSERT_ERROR_KEY(get(kDeals, query + "&limit=2&cursor=" + urlEncode(cursor), other.token),
                           "cursor");
    // Through search too.
    QUERY_ASSERT_ERROR_KEY(
        client_->post(kDeals + "/search",
                      Json::object({{"sort", "-value"}, {"limit", 2}, {"cursor", cursor}}),
                      bearer(other.token)),
        "cursor");
    // The owner's own cursor still works.
    E2E_ASSERT_DATA(200, get(kDeals, query + "&limit=2&cursor=" + urlEncode(cursor)));
  }

  void testCursorWithAnotherFilterOrSortIs422() {
    const std::string open = filterParam(Json::object({{"status", "open"}}));
    const std::string cursor = firstCursor(*client_, token_, kDeals, open + "&sort=value", 1);
    const std::string tail = "&limit=1&cursor=" + urlEncode(cursor);
    E2E_ASSERT_DATA(200, get(kDeals, open + "&sort=value" + tail));
    QUERY_ASSERT_ERROR_KEY(get(kDeals, open + "&sort=-value" + tail), "cursor");
    QUERY_ASSERT_ERROR_KEY(get(kDeals, open + "&sort=value,title" + tail), "cursor");
    QUERY_ASSERT_ERROR_KEY(get(kDeals, open + tail), "cursor");  // the default sort
    QUERY_ASSERT_ERROR_KEY(get(kDeals, "sort=value" + tail), "cursor");
    QUERY_ASSERT_ERROR_KEY(
        get(kDeals, filterParam(Json::object({{"status", "won"}})) + "&sort=value" + tail),
        "cursor");
    QUERY_ASSERT_ERROR_KEY(
        get(kDeals, filterParam(Json::parse(R"({"status":"open","value":{"gte":0}})")) +
                        "&sort=value" + tail),
        "cursor");
  }

  void testCursorOfContactsOnDealsIs422() {
    const std::string cursor = firstCursor(*client_, token_, kContacts, "sort=created_at", 1);
    QUERY_ASSERT_ERROR_KEY(get(kDeals, "sort=created_at&limit=1&cursor=" + urlEncode(cursor)),
                           "cursor");
    QUERY_ASSERT_ERROR_KEY(get(kCompanies, "sort=created_at&limit=1&cursor=" + urlEncode(cursor)),
                           "cursor");
    E2E_ASSERT_DATA(200, get(kContacts, "sort=created_at&limit=1&cursor=" + urlEncode(cursor)));
  }

  // A sub-list's cursor is sealed for its parent: the same list of another
  // company's contacts refuses it.
  void testCursorOfAnotherSubListIs422() {
    const Dataset& d = dataset();
    const std::string acme = kCompanies + "/" + d.acme + "/contacts";
    const std::string cursor = firstCursor(*client_, token_, acme, "sort=name", 1);
    E2E_ASSERT_DATA(200, get(acme, "sort=name&limit=1&cursor=" + urlEncode(cursor)));
    QUERY_ASSERT_ERROR_KEY(get(kCompanies + "/" + d.bolt + "/contacts",
                               "sort=name&limit=1&cursor=" + urlEncode(cursor)),
                           "cursor");
  }

  // Without limit or cursor: page/per_page and the pagination meta, totals
  // of the filter.
  void testPagesUnchangedWithFilterAndSort() {
    const Dataset& d = dataset();
    const std::string open = filterParam(Json::object({{"status", "open"}})) + "&sort=-value";
    Json body = listBody(*client_, token_, kDeals, open + "&per_page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.engine, d.renewal}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":2,"total":3,"last_page":2})"),
                         body["meta"].dump());
    body = listBody(*client_, token_, kDeals, open + "&per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.parts}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":2,"per_page":2,"total":3,"last_page":2})"),
                         body["meta"].dump());
    body = listBody(*client_, token_, kContacts,
                    filterParam(Json::parse(R"({"company.industry":"Retail"})")) + "&page=1");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.bob, d.alice}));  // newest first
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":2,"last_page":1})"),
                         body["meta"].dump());
    body = listBody(*client_, token_, kActivities, "sort=-scheduled_at&per_page=3&page=1");
    // Unscheduled activities first descending (docs/modules/activities.md).
    CPPUNIT_ASSERT(idsOf(body) == concat({byId({d.sendQuote, d.note}, true), {d.meetAcme}}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":3,"total":5,"last_page":2})"),
                         body["meta"].dump());
  }

  void testSubListWithFilterAndCursor() {
    const Dataset& d = dataset();
    const std::string path = kCompanies + "/" + d.acme + "/contacts";
    CPPUNIT_ASSERT(listed(*client_, token_, path,
                          filterParam(Json::parse(R"({"name":{"contains":"STONE"}})"))) ==
                   (Ids{d.bob}));
    const Walk walked = walk(*client_, token_, path, "sort=name", 1);
    CPPUNIT_ASSERT(walked.ids == (Ids{d.alice, d.bob}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), walked.metas.size());
    const Walk tagged =
        walk(*client_, token_, path,
             filterParam(Json::parse(R"({"tags":{"contains":"vip"}})")) + "&sort=-name", 1);
    CPPUNIT_ASSERT(tagged.ids == (Ids{d.alice}));
    // A filter naming another company's contacts finds nothing in this one's.
    CPPUNIT_ASSERT(
        listed(*client_, token_, path, filterParam(Json::object({{"company_id", d.bolt}})))
            .empty());
    QUERY_ASSERT_ERROR_KEY(get(path, filterParam(Json::object({{"nope", 1}}))), "filter.nope");
    // include on a sub-list.
    const Json included = listBody(*client_, token_, path, "sort=name&include=company");
    for (const Json& record : included["data"].asArray()) {
      CPPUNIT_ASSERT_EQUAL(d.acme, record["company"]["id"].asString());
    }
    const Json pages =
        listBody(*client_, token_, kCompanies + "/" + d.acme + "/deals",
                 filterParam(Json::object({{"value", Json::object({{"gt", 10000}})}})));
    CPPUNIT_ASSERT(idsOf(pages) == (Ids{d.engine}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":1,"last_page":1})"),
                         pages["meta"].dump());
  }

  void testSubListWithSort() {
    const Dataset& d = dataset();
    const std::string path = kContacts + "/" + d.alice + "/deals";
    CPPUNIT_ASSERT(listed(*client_, token_, path, "sort=value") == (Ids{d.renewal, d.engine}));
    CPPUNIT_ASSERT(listed(*client_, token_, path, "sort=-value") == (Ids{d.engine, d.renewal}));
    CPPUNIT_ASSERT(listed(*client_, token_, path, "sort=-expected_close_date") ==
                   (Ids{d.renewal, d.engine}));
    CPPUNIT_ASSERT(walk(*client_, token_, path, "sort=title", 1).ids == (Ids{d.engine, d.renewal}));
    QUERY_ASSERT_ERROR_KEY(get(path, "sort=tags"), "sort");
    const std::string activities = kContacts + "/" + d.bob + "/activities";
    CPPUNIT_ASSERT(listed(*client_, token_, activities, "sort=-scheduled_at") == (Ids{d.mailBob}));
    const std::string ofDeal = kDeals + "/" + d.engine + "/activities";
    CPPUNIT_ASSERT(listed(*client_, token_, ofDeal,
                          filterParam(Json::object({{"type", "task"}})) + "&sort=title") ==
                   (Ids{d.sendQuote}));
    CPPUNIT_ASSERT(
        listed(*client_, token_, ofDeal, filterParam(Json::object({{"type", "call"}}))).empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryCursorTest);
