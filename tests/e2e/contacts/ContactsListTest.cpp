// GET /crm/contacts (API Contacts; decisions §1): pagination and its edges,
// order and sort, every filter alone and combined, search over name, e-mail
// and phone (short terms included), and tenant isolation of all of it.
#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>

#include "e2e/contacts/ContactsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

// One tenant with a known set of contacts, created oldest first:
//   alice   "alice Walker"  alice@north.io   +1 555 0101  tags VIP, Lead  company A  owner me
//   bob     "Bob Stone"     bob@south.io     +1 555 0202  tags lead       company A
//   carol   "carol Stone"   carol@north.io   (no phone)   tags Cold       company B  owner me
//   dan     "Dan 100%_off"  (no e-mail)      +44 20 0303  (no tags)
//   erin    "Erin Zed"      erin@west.io     (no phone)   tags vip
struct Dataset {
  Account account;
  std::string companyA, companyB;
  std::string alice, bob, carol, dan, erin;
};

const Dataset& dataset() {
  static const Dataset data = [] {
    HttpClient client(contactsServer().port());
    Dataset d;
    d.account = registerUser(client, "contacts-list");
    const std::string& token = d.account.token;
    d.companyA =
        createCrmCompany(client, token, Json::object({{"name", "Company A"}}))["id"].asString();
    d.companyB =
        createCrmCompany(client, token, Json::object({{"name", "Company B"}}))["id"].asString();
    const auto add = [&](Json body) { return createContact(client, token, body)["id"].asString(); };
    d.alice = add(Json::object({{"name", "alice Walker"},
                                {"email", "alice@north.io"},
                                {"phone", "+1 555 0101"},
                                {"tags", Json::Array{"VIP", "Lead"}},
                                {"company_id", d.companyA},
                                {"owner_id", d.account.userId}}));
    d.bob = add(Json::object({{"name", "Bob Stone"},
                              {"email", "bob@south.io"},
                              {"phone", "+1 555 0202"},
                              {"tags", Json::Array{"lead"}},
                              {"company_id", d.companyA}}));
    d.carol = add(Json::object({{"name", "carol Stone"},
                                {"email", "carol@north.io"},
                                {"tags", Json::Array{"Cold"}},
                                {"company_id", d.companyB},
                                {"owner_id", d.account.userId}}));
    d.dan = add(Json::object({{"name", "Dan 100%_off"}, {"phone", "+44 20 0303"}}));
    d.erin = add(Json::object(
        {{"name", "Erin Zed"}, {"email", "erin@west.io"}, {"tags", Json::Array{"vip"}}}));
    return d;
  }();
  return data;
}

using Ids = std::vector<std::string>;

}  // namespace

class ContactsListTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContactsListTest);
  CPPUNIT_TEST(testNewestFirstWithMeta);
  CPPUNIT_TEST(testPagination);
  CPPUNIT_TEST(testPaginationRules);
  CPPUNIT_TEST(testEmptyList);
  CPPUNIT_TEST(testSort);
  CPPUNIT_TEST(testTagFilterIgnoresCase);
  CPPUNIT_TEST(testTagFilterPagesInEveryOrder);
  CPPUNIT_TEST(testConcurrentWritesKeepTotalsExact);
  CPPUNIT_TEST(testCompanyAndOwnerFilters);
  CPPUNIT_TEST(testSearch);
  CPPUNIT_TEST(testShortSearchTerms);
  CPPUNIT_TEST(testSearchTakesWildcardsLiterally);
  CPPUNIT_TEST(testFiltersCombine);
  CPPUNIT_TEST(testOtherTenantsSeeNothing);
  CPPUNIT_TEST(testTotalFollowsCreatesAndDeletes);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override { client_ = std::make_unique<HttpClient>(contactsServer().port()); }
  void tearDown() override { client_.reset(); }

  void testNewestFirstWithMeta() {
    const Dataset& d = dataset();
    const HttpResult result = client_->get("/v1/crm/contacts", bearer(d.account.token));
    E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    const Json body = result.json();
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.erin, d.dan, d.carol, d.bob, d.alice}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":5,"last_page":1})"),
                         body["meta"].dump());
    // Each item is the whole contact, as GET returns it.
    const Json one =
        E2E_ASSERT_DATA(200, client_->get("/v1/crm/contacts/" + d.alice, bearer(d.account.token)));
    CPPUNIT_ASSERT_EQUAL(one.dump(), body["data"].asArray().back().dump());
  }

  void testPagination() {
    const Dataset& d = dataset();
    const auto page = [&](const std::string& query) {
      return getBody(*client_, d.account.token, "/v1/crm/contacts?" + query);
    };
    Json body = page("per_page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.erin, d.dan}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":2,"total":5,"last_page":3})"),
                         body["meta"].dump());
    body = page("per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.carol, d.bob}));
    body = page("per_page=2&page=3");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.alice}));
    // Past the end: empty data, true meta.
    body = page("per_page=2&page=9");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":9,"per_page":2,"total":5,"last_page":3})"),
                         body["meta"].dump());
    body = page("per_page=100");
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), body["data"].size());
    body = page("per_page=1&page=5");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.alice}));
  }

  void testPaginationRules() {
    const Dataset& d = dataset();
    for (const char* query : {"page=0", "page=-1", "page=abc", "page=1.5", "page="}) {
      CRM_ASSERT_FIELD_ERROR(
          client_->get(std::string("/v1/crm/contacts?") + query, bearer(d.account.token)), "page",
          "");
    }
    for (const char* query : {"per_page=0", "per_page=101", "per_page=x"}) {
      CRM_ASSERT_FIELD_ERROR(
          client_->get(std::string("/v1/crm/contacts?") + query, bearer(d.account.token)),
          "per_page", "");
    }
  }

  void testEmptyList() {
    const Account fresh = registerUser(*client_, "contacts-empty");
    const Json body = getBody(*client_, fresh.token, "/v1/crm/contacts?page=3");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":3,"per_page":20,"total":0,"last_page":1})"),
                         body["meta"].dump());
  }

  void testSort() {
    const Dataset& d = dataset();
    const auto sorted = [&](const std::string& sort) {
      return idsOf(getBody(*client_, d.account.token, "/v1/crm/contacts?sort=" + sort));
    };
    // Names sort without regard to case.
    CPPUNIT_ASSERT(sorted("name") == (Ids{d.alice, d.bob, d.carol, d.dan, d.erin}));
    CPPUNIT_ASSERT(sorted("-name") == (Ids{d.erin, d.dan, d.carol, d.bob, d.alice}));
    // Contacts without e-mail sort first ascending.
    CPPUNIT_ASSERT(sorted("email") == (Ids{d.dan, d.alice, d.bob, d.carol, d.erin}));
    CPPUNIT_ASSERT(sorted("-email") == (Ids{d.erin, d.carol, d.bob, d.alice, d.dan}));
    CPPUNIT_ASSERT(sorted("created_at") == (Ids{d.alice, d.bob, d.carol, d.dan, d.erin}));
    CPPUNIT_ASSERT(sorted("-created_at") == (Ids{d.erin, d.dan, d.carol, d.bob, d.alice}));
    CPPUNIT_ASSERT(sorted("updated_at") == (Ids{d.alice, d.bob, d.carol, d.dan, d.erin}));
    // Sorting combines with pagination.
    const Json body =
        getBody(*client_, d.account.token, "/v1/crm/contacts?sort=name&per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.carol, d.dan}));
    // decisions §13: every stored field sorts, on up to 3 keys; tags (an
    // array) and unknown names do not.
    for (const char* bad : {"tags", "-phones", "", "-", "name,name", "a,b,c,d", "name,"}) {
      CRM_ASSERT_FIELD_ERROR(
          client_->get(std::string("/v1/crm/contacts?sort=") + bad, bearer(d.account.token)),
          "sort", "");
    }
  }

  void testTagFilterIgnoresCase() {
    const Dataset& d = dataset();
    const auto tagged = [&](const std::string& tag) {
      return idsOf(getBody(*client_, d.account.token, "/v1/crm/contacts?tag=" + tag));
    };
    CPPUNIT_ASSERT(tagged("vip") == (Ids{d.erin, d.alice}));
    CPPUNIT_ASSERT(tagged("VIP") == (Ids{d.erin, d.alice}));
    CPPUNIT_ASSERT(tagged("LeAd") == (Ids{d.bob, d.alice}));
    CPPUNIT_ASSERT(tagged("cold") == (Ids{d.carol}));
    CPPUNIT_ASSERT(tagged("vi").empty());  // whole tags only
    CPPUNIT_ASSERT(tagged("nope").empty());
    const Json body = getBody(*client_, d.account.token, "/v1/crm/contacts?tag=lead&per_page=1");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), body["meta"]["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), body["meta"]["last_page"].asInt());
    // Tags come back as written, in order.
    const Json alice =
        E2E_ASSERT_DATA(200, client_->get("/v1/crm/contacts/" + d.alice, bearer(d.account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string(R"(["VIP","Lead"])"), alice["tags"].dump());
  }

  // A tag filter alone pages from the tag table's own order (created_at):
  // pages must still match the records' order, before and after tags change.
  void testTagFilterPagesInEveryOrder() {
    const Account account = registerUser(*client_, "contacts-tag-pages");
    std::vector<std::string> made;  // oldest first
    for (const char* name : {"Tess", "Uma", "Vic", "Wes", "Xia", "Yan"}) {
      made.push_back(
          createContact(*client_, account.token,
                        Json::object({{"name", name}, {"tags", Json::Array{"pg"}}}))["id"]
              .asString());
    }
    createContact(*client_, account.token, Json::object({{"name", "Zed"}}));
    // Vic loses the tag, Zed never had it; Uma's tags change but she keeps "pg".
    E2E_ASSERT_DATA(
        200, client_->patch("/v1/crm/contacts/" + made[2],
                            Json::object({{"tags", Json::Array{"other"}}}), bearer(account.token)));
    E2E_ASSERT_DATA(200, client_->patch("/v1/crm/contacts/" + made[1],
                                        Json::object({{"tags", Json::Array{"x", "PG"}}}),
                                        bearer(account.token)));
    const auto pages = [&](const std::string& sort) {
      Ids all;
      for (int page = 1; page <= 3; ++page) {
        const Json body =
            getBody(*client_, account.token,
                    "/v1/crm/contacts?tag=pg&per_page=2&page=" + std::to_string(page) + sort);
        CPPUNIT_ASSERT_EQUAL(std::int64_t(5), body["meta"]["total"].asInt());
        CPPUNIT_ASSERT_EQUAL(std::int64_t(3), body["meta"]["last_page"].asInt());
        for (const std::string& id : idsOf(body)) all.push_back(id);
      }
      return all;
    };
    const Ids newest{made[5], made[4], made[3], made[1], made[0]};
    CPPUNIT_ASSERT(pages("") == newest);
    CPPUNIT_ASSERT(pages("&sort=-created_at") == newest);
    CPPUNIT_ASSERT(pages("&sort=created_at") == (Ids{made[0], made[1], made[3], made[4], made[5]}));
    CPPUNIT_ASSERT(pages("&sort=-name") == newest);  // Yan, Xia, Wes, Uma, Tess

    // The tag's total follows every write that adds or removes the tag, and
    // nothing else: a refused create rolls its tag rows back with it.
    const auto total = [&](const std::string& tag) {
      return getBody(*client_, account.token, "/v1/crm/contacts?tag=" + tag)["meta"]["total"]
          .asInt();
    };
    createContact(*client_, account.token,
                  Json::object({{"name", "Ally"}, {"email", "dup@tag-pages.io"}}));
    E2E_ASSERT_ERROR(409, client_->post("/v1/crm/contacts",
                                        Json::object({{"name", "Dup"},
                                                      {"email", "dup@tag-pages.io"},
                                                      {"tags", Json::Array{"pg"}}}),
                                        bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), total("pg"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), total("OTHER"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), total("never-used"));
    E2E_ASSERT_DATA(200, client_->del("/v1/crm/contacts/" + made[2], bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), total("other"));
    for (const std::string& id : newest) {
      E2E_ASSERT_DATA(200, client_->del("/v1/crm/contacts/" + id, bearer(account.token)));
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), total("pg"));
    CPPUNIT_ASSERT_EQUAL(
        std::string("[]"),
        getBody(*client_, account.token, "/v1/crm/contacts?tag=pg")["data"].dump());
    // A tag used again after its last record went starts from one.
    createContact(*client_, account.token,
                  Json::object({{"name", "Bo"}, {"tags", Json::Array{"pg"}}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), total("pg"));
  }

  // Writers of one tenant at once: the count rows are spread over slots on
  // PostgreSQL, and a transaction aborted for a deadlock runs again; the
  // totals stay exact and no request fails.
  void testConcurrentWritesKeepTotalsExact() {
    const Account account = registerUser(*client_, "contacts-burst");
    constexpr int kThreads = 8;
    constexpr int kEach = 6;
    std::vector<std::vector<std::string>> made(kThreads);
    std::vector<std::string> failures(kThreads);
    const auto inParallel = [&](const std::function<void(HttpClient&, int)>& work) {
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          try {
            HttpClient client(contactsServer().port());
            work(client, t);
          } catch (const std::exception& e) {
            failures[t] = e.what();
          }
        });
      }
      for (auto& thread : threads) thread.join();
      for (const std::string& failure : failures) CPPUNIT_ASSERT_EQUAL(std::string(), failure);
    };
    inParallel([&](HttpClient& client, int t) {
      for (int i = 0; i < kEach; ++i) {
        // Tags in both orders, so writers meet on the tag counts every way.
        const Json tags = i % 2 == 0 ? Json::Array{"burst", "lead"} : Json::Array{"lead", "burst"};
        const HttpResult created = client.post(
            "/v1/crm/contacts",
            Json::object(
                {{"name", "Burst " + std::to_string(t) + "-" + std::to_string(i)}, {"tags", tags}}),
            bearer(account.token));
        if (created.status != 201) throw std::runtime_error(describe(created));
        made[t].push_back(created.json()["data"]["id"].asString());
      }
    });
    const auto total = [&](const std::string& query) {
      return getBody(*client_, account.token, "/v1/crm/contacts" + query)["meta"]["total"].asInt();
    };
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kEach}, total(""));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kEach}, total("?tag=burst"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kEach}, total("?tag=lead"));
    inParallel([&](HttpClient& client, int t) {
      for (int i = 0; i < kEach; i += 2) {
        const HttpResult deleted =
            client.del("/v1/crm/contacts/" + made[t][i], bearer(account.token));
        if (deleted.status != 200) throw std::runtime_error(describe(deleted));
      }
    });
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kEach / 2}, total(""));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kEach / 2}, total("?tag=burst"));
  }

  void testCompanyAndOwnerFilters() {
    const Dataset& d = dataset();
    const auto filtered = [&](const std::string& query) {
      return idsOf(getBody(*client_, d.account.token, "/v1/crm/contacts?" + query));
    };
    CPPUNIT_ASSERT(filtered("company_id=" + d.companyA) == (Ids{d.bob, d.alice}));
    CPPUNIT_ASSERT(filtered("company_id=" + d.companyB) == (Ids{d.carol}));
    CPPUNIT_ASSERT(filtered("company_id=comp_unknown").empty());
    CPPUNIT_ASSERT(filtered("owner_id=" + d.account.userId) == (Ids{d.carol, d.alice}));
    CPPUNIT_ASSERT(filtered("owner_id=user_unknown").empty());
  }

  void testSearch() {
    const Dataset& d = dataset();
    const auto found = [&](const std::string& term) {
      return idsOf(getBody(*client_, d.account.token, "/v1/crm/contacts?search=" + term));
    };
    CPPUNIT_ASSERT(found("stone") == (Ids{d.carol, d.bob}));       // name
    CPPUNIT_ASSERT(found("STONE") == (Ids{d.carol, d.bob}));       // any case
    CPPUNIT_ASSERT(found("lice%20wal") == (Ids{d.alice}));         // inside a word, with a space
    CPPUNIT_ASSERT(found("north.io") == (Ids{d.carol, d.alice}));  // e-mail
    CPPUNIT_ASSERT(found("%40SOUTH") == (Ids{d.bob}));             // "@south"
    CPPUNIT_ASSERT(found("555%200202") == (Ids{d.bob}));           // phone
    CPPUNIT_ASSERT(found("%2B44") == (Ids{d.dan}));                // "+44"
    CPPUNIT_ASSERT(found("walker%40").empty());                    // fields do not run together
    CPPUNIT_ASSERT(found("nobody").empty());
    CPPUNIT_ASSERT(found("%20%20").size() == 5);  // blank: no filter
    const Json body =
        getBody(*client_, d.account.token, "/v1/crm/contacts?search=io&per_page=1&page=2");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), body["meta"]["total"].asInt());
    CRM_ASSERT_FIELD_ERROR(
        client_->get("/v1/crm/contacts?search=" + std::string(256, 'a'), bearer(d.account.token)),
        "search", "");
  }

  void testShortSearchTerms() {
    const Dataset& d = dataset();
    const auto found = [&](const std::string& term) {
      return idsOf(getBody(*client_, d.account.token, "/v1/crm/contacts?search=" + term));
    };
    CPPUNIT_ASSERT(found("ZE") == (Ids{d.erin}));
    CPPUNIT_ASSERT(found("st") == (Ids{d.erin, d.carol, d.bob}));  // west, Stone, Stone
    CPPUNIT_ASSERT(found("02") == (Ids{d.bob}));
    CPPUNIT_ASSERT(found("z") == (Ids{d.erin}));
    CPPUNIT_ASSERT(found("q").empty());
  }

  void testSearchTakesWildcardsLiterally() {
    const Dataset& d = dataset();
    const auto found = [&](const std::string& term) {
      return idsOf(getBody(*client_, d.account.token, "/v1/crm/contacts?search=" + term));
    };
    CPPUNIT_ASSERT(found("%25") == (Ids{d.dan}));  // "%"
    CPPUNIT_ASSERT(found("_") == (Ids{d.dan}));
    CPPUNIT_ASSERT(found("0%25_off") == (Ids{d.dan}));  // "0%_off"
    CPPUNIT_ASSERT(found("a%25e").empty());             // "a%e" is not a pattern
    CPPUNIT_ASSERT(found("%22stone%22").empty());       // quotes are literal too
  }

  void testFiltersCombine() {
    const Dataset& d = dataset();
    const auto filtered = [&](const std::string& query) {
      return idsOf(getBody(*client_, d.account.token, "/v1/crm/contacts?" + query));
    };
    CPPUNIT_ASSERT(filtered("tag=lead&company_id=" + d.companyA) == (Ids{d.bob, d.alice}));
    CPPUNIT_ASSERT(filtered("tag=vip&company_id=" + d.companyA) == (Ids{d.alice}));
    CPPUNIT_ASSERT(filtered("search=stone&owner_id=" + d.account.userId) == (Ids{d.carol}));
    CPPUNIT_ASSERT(filtered("search=north&tag=vip") == (Ids{d.alice}));
    CPPUNIT_ASSERT(filtered("search=st&tag=vip") == (Ids{d.erin}));
    CPPUNIT_ASSERT(filtered("search=stone&company_id=" + d.companyB + "&owner_id=" +
                            d.account.userId + "&tag=COLD&sort=name") == (Ids{d.carol}));
    CPPUNIT_ASSERT(filtered("search=stone&tag=vip").empty());
  }

  void testOtherTenantsSeeNothing() {
    const Dataset& d = dataset();
    const Account other = registerUser(*client_, "contacts-list-other");
    createContact(
        *client_, other.token,
        Json::object(
            {{"name", "Stone Other"}, {"email", "stone@north.io"}, {"tags", Json::Array{"vip"}}}));
    for (const std::string& query :
         {std::string(""), std::string("search=stone"), std::string("search=st"),
          std::string("search=north"), std::string("tag=vip"),
          std::string("company_id=") + d.companyA, std::string("owner_id=") + d.account.userId}) {
      const Json body = getBody(*client_, other.token, "/v1/crm/contacts?" + query);
      const auto ids = idsOf(body);
      for (const std::string& id : {d.alice, d.bob, d.carol, d.dan, d.erin}) {
        CPPUNIT_ASSERT_MESSAGE(query, !contains(ids, id));
      }
      CPPUNIT_ASSERT_MESSAGE(query, body["meta"]["total"].asInt() <= 1);
    }
    // A company header changes nothing: the tenant comes from the token.
    const Json spoofed = getBody(*client_, other.token, "/v1/crm/contacts?search=stone",
                                 {{"X-Company-Id", d.account.companyId}});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), spoofed["meta"]["total"].asInt());
    // And the dataset's tenant does not see the other one's contact.
    const Json mine = getBody(*client_, d.account.token, "/v1/crm/contacts?search=stone");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), mine["meta"]["total"].asInt());
    const Json vip = getBody(*client_, d.account.token, "/v1/crm/contacts?tag=vip");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), vip["meta"]["total"].asInt());
  }

  // The unfiltered list reads meta.total from contact_counts (kept by
  // triggers): it stays exact across creates, failed creates, deletes and
  // another tenant's writes, and agrees with a filtered list's COUNT(*).
  void testTotalFollowsCreatesAndDeletes() {
    const Account account = registerUser(*client_, "contacts-total");
    const Account other = registerUser(*client_, "contacts-total-other");
    const auto total = [&](const Account& who, const std::string& query = "") {
      return static_cast<int>(
          getBody(*client_, who.token, "/v1/crm/contacts" + query)["meta"]["total"].asInt());
    };
    CPPUNIT_ASSERT_EQUAL(0, total(account));
    std::vector<std::string> made;
    for (const char* name : {"Ann", "Ben", "Cy"}) {
      made.push_back(createContact(*client_, account.token,
                                   Json::object({{"name", name},
                                                 {"email", std::string(name) + "@total.io"},
                                                 {"tags", Json::Array{"t"}}}))["id"]
                         .asString());
    }
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    CPPUNIT_ASSERT_EQUAL(3, total(account, "?tag=t"));
    // A create that fails (duplicate e-mail) rolls its count back.
    E2E_ASSERT_ERROR(409, client_->post("/v1/crm/contacts",
                                        Json::object({{"name", "Dup"}, {"email", "ann@total.io"}}),
                                        bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    // Another tenant's writes change only its own total.
    createContact(*client_, other.token, Json::object({{"name", "Other 1"}}));
    const std::string otherId =
        createContact(*client_, other.token, Json::object({{"name", "Other 2"}}))["id"].asString();
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    CPPUNIT_ASSERT_EQUAL(2, total(other));
    E2E_ASSERT_DATA(200, client_->del("/v1/crm/contacts/" + otherId, bearer(other.token)));
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    CPPUNIT_ASSERT_EQUAL(1, total(other));
    // Deletes, including a repeated one (404, nothing deleted).
    E2E_ASSERT_DATA(200, client_->del("/v1/crm/contacts/" + made[0], bearer(account.token)));
    E2E_ASSERT_ERROR(404, client_->del("/v1/crm/contacts/" + made[0], bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(2, total(account));
    CPPUNIT_ASSERT_EQUAL(2, total(account, "?tag=t"));
    CPPUNIT_ASSERT_EQUAL(2, total(account, "?per_page=1&page=2&sort=name"));
    for (std::size_t i = 1; i < made.size(); ++i) {
      E2E_ASSERT_DATA(200, client_->del("/v1/crm/contacts/" + made[i], bearer(account.token)));
    }
    const Json empty = getBody(*client_, account.token, "/v1/crm/contacts");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, empty["meta"]["total"].asInt());
    CPPUNIT_ASSERT(idsOf(empty).empty());
  }

 private:
  std::unique_ptr<HttpClient> client_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContactsListTest);
