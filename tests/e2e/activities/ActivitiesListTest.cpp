// GET /crm/activities (decisions §1, §7): pagination, every sort in both
// directions, every filter and its 422s, and the total kept by the row count.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/activities/ActivitiesSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {
using Ids = std::vector<std::string>;

std::string idOf(const Json& record) {
  return record["id"].asString();
}
}  // namespace

class ActivitiesListTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ActivitiesListTest);
  CPPUNIT_TEST(testNewestFirstAndPages);
  CPPUNIT_TEST(testPaginationRules);
  CPPUNIT_TEST(testSorts);
  CPPUNIT_TEST(testSearch);
  CPPUNIT_TEST(testTypeStatusAndOwnerFilters);
  CPPUNIT_TEST(testRelatedFilters);
  CPPUNIT_TEST(testScheduledRange);
  CPPUNIT_TEST(testFilterErrors);
  CPPUNIT_TEST(testTotalFollowsCreatesAndDeletes);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNewestFirstAndPages() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-list");
    Ids created;
    for (int i = 0; i < 5; ++i) {
      created.push_back(idOf(createCall(client, account.token, "Call " + std::to_string(i))));
    }
    const Ids newest(created.rbegin(), created.rend());
    Json body = getBody(client, account.token, "/v1/crm/activities");
    CPPUNIT_ASSERT(idsOf(body) == newest);
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":5,"last_page":1})"),
                         body["meta"].dump());
    // Full activities, as GET returns them.
    CPPUNIT_ASSERT_EQUAL(readActivity(client, account.token, created[0]).dump(),
                         body["data"].asArray().back().dump());

    body = getBody(client, account.token, "/v1/crm/activities?per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{newest[2], newest[3]}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":2,"per_page":2,"total":5,"last_page":3})"),
                         body["meta"].dump());
    body = getBody(client, account.token, "/v1/crm/activities?per_page=2&page=3");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{newest[4]}));
    body = getBody(client, account.token, "/v1/crm/activities?page=9");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":9,"per_page":20,"total":5,"last_page":1})"),
                         body["meta"].dump());

    const Account empty = registerUser(client, "act-list-empty");
    body = getBody(client, empty.token, "/v1/crm/activities");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":0,"last_page":1})"),
                         body["meta"].dump());
  }

  void testPaginationRules() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-list-422");
    for (const std::string query : {"?page=0", "?page=x", "?per_page=0", "?per_page=101",
                                    "?sort=statuses", "?sort=-related_to", "?sort=a,b,c,d"}) {
      const HttpResult bad = client.get("/v1/crm/activities" + query, bearer(account.token));
      const std::string field = query.substr(1, query.find('=') - 1);
      CRM_ASSERT_FIELD_ERROR(bad, field, "");
    }
    E2E_ASSERT_DATA(200, client.get("/v1/crm/activities?per_page=100", bearer(account.token)));
  }

  void testSorts() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-sort");
    const auto add = [&](const std::string& title, Json scheduledAt) {
      return idOf(createActivity(
          client, account.token,
          Json::object(
              {{"type", "call"}, {"title", title}, {"scheduled_at", std::move(scheduledAt)}})));
    };
    const std::string b = add("beta", "2026-12-03T10:00:00Z");
    const std::string a = add("Alpha", "2026-12-05T10:00:00Z");
    const std::string none = add("delta", Json());
    const std::string c = add("charlie", "2026-12-01T10:00:00Z");
    const auto ids = [&](const std::string& sort) {
      return idsOf(getBody(client, account.token, "/v1/crm/activities?sort=" + sort));
    };
    CPPUNIT_ASSERT(ids("created_at") == (Ids{b, a, none, c}));
    CPPUNIT_ASSERT(ids("-created_at") == (Ids{c, none, a, b}));
    // Titles sort without regard to case.
    CPPUNIT_ASSERT(ids("title") == (Ids{a, b, c, none}));
    CPPUNIT_ASSERT(ids("-title") == (Ids{none, c, b, a}));
    // Unscheduled activities come after the scheduled ones (first when descending).
    CPPUNIT_ASSERT(ids("scheduled_at") == (Ids{c, b, a, none}));
    CPPUNIT_ASSERT(ids("-scheduled_at") == (Ids{none, a, b, c}));
    // updated_at follows the last change.
    E2E_ASSERT_DATA(200, client.patch("/v1/crm/activities/" + b, Json::object({{"title", "bravo"}}),
                                      bearer(account.token)));
    E2E_ASSERT_DATA(200, client.post("/v1/crm/activities/" + a + "/complete", Json::object(),
                                     bearer(account.token)));
    CPPUNIT_ASSERT(ids("updated_at") == (Ids{none, c, b, a}));
    CPPUNIT_ASSERT(ids("-updated_at") == (Ids{a, b, c, none}));
    // A sort combines with paging and filters.
    const Json page =
        getBody(client, account.token, "/v1/crm/activities?sort=scheduled_at&per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(page) == (Ids{a, none}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), page["meta"]["total"].asInt());
    CPPUNIT_ASSERT(idsOf(getBody(client, account.token,
                                 "/v1/crm/activities?status=pending&sort=-scheduled_at")) ==
                   (Ids{none, b, c}));
  }

  void testSearch() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-search");
    const Account other = registerUser(client, "act-search-other");
    const auto add = [&](const std::string& title, Json description) {
      return idOf(createActivity(
          client, account.token,
          Json::object(
              {{"type", "note"}, {"title", title}, {"description", std::move(description)}})));
    };
    const std::string pricing = add("Pricing call", "Discuss the 50% discount");
    const std::string kickoff = add("Kick-off", "Agenda: PRICING and scope");
    const std::string lunch = add("Lunch", Json());
    const std::string percent = add("Under_score", "100% sure");
    createActivity(client, other.token,
                   Json::object({{"type", "note"}, {"title", "Pricing elsewhere"}}));
    const auto search = [&](const std::string& term) {
      return idsOf(getBody(client, account.token, "/v1/crm/activities?search=" + term));
    };
    // Title and description, any case, as a substring.
    CPPUNIT_ASSERT(search("pricing") == (Ids{kickoff, pricing}));
    CPPUNIT_ASSERT(search("PRICI") == (Ids{kickoff, pricing}));
    CPPUNIT_ASSERT(search("agenda") == (Ids{kickoff}));
    CPPUNIT_ASSERT(search("unc") == (Ids{lunch}));
    // Short terms (below a trigram) work too.
    CPPUNIT_ASSERT(search("lu") == (Ids{lunch}));
    // %, _ and quotes are literal.
    CPPUNIT_ASSERT(search("50%25") == (Ids{pricing}));
    CPPUNIT_ASSERT(search("%25") == (Ids{percent, pricing}));
    CPPUNIT_ASSERT(search("r_s") == (Ids{percent}));
    CPPUNIT_ASSERT(search("%22pricing%22").empty());
    CPPUNIT_ASSERT(search("nothing-like-this").empty());
    // Not across title and description.
    CPPUNIT_ASSERT(search("callDiscuss").empty());
    // Blank is no filter; the total counts the matches.
    CPPUNIT_ASSERT_EQUAL(std::size_t(4), search("%20%20").size());
    const Json body =
        getBody(client, account.token, "/v1/crm/activities?search=pricing&per_page=1");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), body["meta"]["total"].asInt());
    // A search follows edits.
    E2E_ASSERT_DATA(200, client.patch("/v1/crm/activities/" + lunch,
                                      Json::object({{"description", "pricing over lunch"}}),
                                      bearer(account.token)));
    CPPUNIT_ASSERT(search("pricing") == (Ids{lunch, kickoff, pricing}));
    CRM_ASSERT_FIELD_ERROR(
        client.get("/v1/crm/activities?search=" + std::string(256, 's'), bearer(account.token)),
        "search", "The search may not be greater than 255 characters.");
  }

  void testTypeStatusAndOwnerFilters() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-filters");
    const Account member = addMember(client, account, "member", "act-filters-member");
    const auto add = [&](const std::string& type, Json owner) {
      return idOf(createActivity(
          client, account.token,
          Json::object({{"type", type}, {"title", "T"}, {"owner_id", std::move(owner)}})));
    };
    const std::string call = add("call", account.userId);
    const std::string meeting = add("meeting", member.userId);
    const std::string email = add("email", Json());
    const std::string task = add("task", member.userId);
    const std::string note = add("note", account.userId);
    E2E_ASSERT_DATA(200, client.post("/v1/crm/activities/" + meeting + "/complete", Json::object(),
                                     bearer(account.token)));
    E2E_ASSERT_DATA(200, client.post("/v1/crm/activities/" + note + "/complete", Json::object(),
                                     bearer(account.token)));
    const auto list = [&](const std::string& query) {
      return getBody(client, account.token, "/v1/crm/activities?" + query);
    };
    CPPUNIT_ASSERT(idsOf(list("type=call")) == (Ids{call}));
    CPPUNIT_ASSERT(idsOf(list("type=meeting")) == (Ids{meeting}));
    CPPUNIT_ASSERT(idsOf(list("type=email")) == (Ids{email}));
    CPPUNIT_ASSERT(idsOf(list("type=task")) == (Ids{task}));
    CPPUNIT_ASSERT(idsOf(list("type=note")) == (Ids{note}));
    CPPUNIT_ASSERT(idsOf(list("status=completed")) == (Ids{note, meeting}));
    CPPUNIT_ASSERT(idsOf(list("status=pending")) == (Ids{task, email, call}));
    CPPUNIT_ASSERT(idsOf(list("owner_id=" + member.userId)) == (Ids{task, meeting}));
    CPPUNIT_ASSERT(idsOf(list("owner_id=" + account.userId)) == (Ids{note, call}));
    CPPUNIT_ASSERT(idsOf(list("owner_id=user_nobody")).empty());
    // Filters combine with AND; blank ones are ignored.
    const Json both = list("status=completed&owner_id=" + member.userId + "&type=&search=");
    CPPUNIT_ASSERT(idsOf(both) == (Ids{meeting}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), both["meta"]["total"].asInt());
    CPPUNIT_ASSERT(idsOf(list("type=call&status=completed")).empty());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3),
                         list("status=pending&per_page=1")["meta"]["total"].asInt());
  }

  void testRelatedFilters() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-related-filter");
    const std::string& token = account.token;
    const Json ada = createContact(client, token, Json::object({{"name", "Ada"}}));
    const Json bob = createContact(client, token, Json::object({{"name", "Bob"}}));
    const Json acme = createCrmCompany(client, token, Json::object({{"name", "Acme"}}));
    const Json deal = createDeal(client, token, "Renewal");
    const auto add = [&](Json relatedTo) {
      return idOf(createActivity(
          client, token,
          Json::object({{"type", "call"}, {"title", "T"}, {"related_to", std::move(relatedTo)}})));
    };
    const std::string toAda = add(related("contact", ada["id"]));
    const std::string toBob = add(related("contact", bob["id"]));
    const std::string toAcme = add(related("company", acme["id"]));
    const std::string toDeal = add(related("deal", deal["id"]));
    const std::string toAda2 = add(related("contact", ada["id"]));
    add(Json());
    const auto ids = [&](const std::string& query) {
      return idsOf(getBody(client, token, "/v1/crm/activities?" + query));
    };
    CPPUNIT_ASSERT(ids("related_type=contact") == (Ids{toAda2, toBob, toAda}));
    CPPUNIT_ASSERT(ids("related_type=company") == (Ids{toAcme}));
    CPPUNIT_ASSERT(ids("related_type=deal") == (Ids{toDeal}));
    CPPUNIT_ASSERT(ids("related_type=contact&related_id=" + ada["id"].asString()) ==
                   (Ids{toAda2, toAda}));
    CPPUNIT_ASSERT(ids("related_type=company&related_id=" + acme["id"].asString()) ==
                   (Ids{toAcme}));
    CPPUNIT_ASSERT(ids("related_type=deal&related_id=" + deal["id"].asString()) == (Ids{toDeal}));
    // The id must be of that type.
    CPPUNIT_ASSERT(ids("related_type=company&related_id=" + ada["id"].asString()).empty());
    CPPUNIT_ASSERT(ids("related_type=contact&related_id=cont_nobody").empty());
  }

  void testScheduledRange() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-range");
    const auto add = [&](Json scheduledAt) {
      return idOf(createActivity(
          client, account.token,
          Json::object(
              {{"type", "meeting"}, {"title", "M"}, {"scheduled_at", std::move(scheduledAt)}})));
    };
    const std::string first = add("2026-12-01T09:00:00Z");
    const std::string second = add("2026-12-02T09:00:00Z");
    const std::string third = add("2026-12-03T09:00:00.000001Z");
    add(Json());  // never in a range
    const auto ids = [&](const std::string& query) {
      return idsOf(getBody(client, account.token, "/v1/crm/activities?sort=scheduled_at&" + query));
    };
    // Both bounds are inclusive.
    CPPUNIT_ASSERT(ids("scheduled_from=2026-12-02T09:00:00Z") == (Ids{second, third}));
    CPPUNIT_ASSERT(ids("scheduled_to=2026-12-02T09:00:00Z") == (Ids{first, second}));
    CPPUNIT_ASSERT(ids("scheduled_from=2026-12-01T09:00:00Z&scheduled_to=2026-12-03T09:00:00Z") ==
                   (Ids{first, second}));
    CPPUNIT_ASSERT(ids("scheduled_from=2026-12-02T09:00:00Z&scheduled_to=2026-12-02T09:00:00Z") ==
                   (Ids{second}));
    CPPUNIT_ASSERT(ids("scheduled_from=2026-12-03T09:00:00.000001Z") == (Ids{third}));
    CPPUNIT_ASSERT(ids("scheduled_from=2026-12-03T09:00:00.000002Z").empty());
    CPPUNIT_ASSERT(ids("scheduled_to=2026-11-30T23:59:59Z").empty());
    // An offset is read as such (%2B is "+").
    CPPUNIT_ASSERT(ids("scheduled_from=2026-12-02T10:00:00%2B01:00&scheduled_to=2026-12-02T10:00:"
                       "00%2B01:00") == (Ids{second}));
    const Json counted = getBody(
        client, account.token, "/v1/crm/activities?scheduled_from=2026-01-01T00:00:00Z&per_page=1");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), counted["meta"]["total"].asInt());
  }

  void testFilterErrors() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-filter-422");
    const auto get = [&](const std::string& query) {
      return client.get("/v1/crm/activities?" + query, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(get("type=visit"), "type", "The selected type is invalid.");
    CRM_ASSERT_FIELD_ERROR(get("type=CALL"), "type", "The selected type is invalid.");
    CRM_ASSERT_FIELD_ERROR(get("status=done"), "status", "The selected status is invalid.");
    CRM_ASSERT_FIELD_ERROR(get("related_type=user"), "related_type",
                           "The selected related_type is invalid.");
    CRM_ASSERT_FIELD_ERROR(get("related_id=cont_x"), "related_id",
                           "The related_id filter needs a related_type.");
    CRM_ASSERT_FIELD_ERROR(get("scheduled_from=yesterday"), "scheduled_from",
                           "The scheduled_from is not a valid date-time.");
    CRM_ASSERT_FIELD_ERROR(get("scheduled_to=2026-12-01"), "scheduled_to",
                           "The scheduled_to is not a valid date-time.");
    // A bare "+" in a query is a space (form encoding): the offset must be %2B.
    CRM_ASSERT_FIELD_ERROR(get("scheduled_to=2026-12-01T10:00:00+01:00"), "scheduled_to",
                           "The scheduled_to is not a valid date-time.");
    CRM_ASSERT_FIELD_ERROR(
        get("scheduled_from=2026-12-02T00:00:00Z&scheduled_to=2026-12-01T00:00:00Z"),
        "scheduled_to", "The scheduled_to must be a date-time after or equal to scheduled_from.");
    // Every parameter at fault at once.
    const Json all = CRM_ASSERT_FIELD_ERROR(get("type=x&status=y&scheduled_from=z"), "type", "");
    CPPUNIT_ASSERT(all["errors"].contains("status"));
    CPPUNIT_ASSERT(all["errors"].contains("scheduled_from"));
  }

  void testTotalFollowsCreatesAndDeletes() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-total");
    const Account other = registerUser(client, "act-total-other");
    const auto total = [&]() {
      return getBody(client, account.token, "/v1/crm/activities?per_page=1")["meta"]["total"]
          .asInt();
    };
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), total());
    Ids ids;
    for (int i = 0; i < 4; ++i) ids.push_back(idOf(createCall(client, account.token, "C")));
    createCall(client, other.token, "Theirs");
    // A refused create changes nothing.
    E2E_ASSERT_ERROR(404, client.post("/v1/crm/activities",
                                      Json::object({{"type", "call"},
                                                    {"title", "T"},
                                                    {"related_to", related("contact", "cont_no")}}),
                                      bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), total());
    E2E_ASSERT_DATA(200, client.del("/v1/crm/activities/" + ids[1], bearer(account.token)));
    E2E_ASSERT_DATA(200, client.del("/v1/crm/activities/" + ids[3], bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), total());
    // The unfiltered total is the tenant's row of activity_counts (summed slots).
    const auto rows =
        queryDatabase(server.databaseUrl(),
                      "SELECT CAST(SUM(total) AS BIGINT) FROM activity_counts WHERE company_id = " +
                          sqlQuote(account.companyId));
    CPPUNIT_ASSERT_EQUAL(std::string("2"), rows.at(0).at(0));
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(1),
        getBody(client, other.token, "/v1/crm/activities")["meta"]["total"].asInt());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActivitiesListTest);
