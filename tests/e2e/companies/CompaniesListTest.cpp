// GET /crm/companies (API CRM companies; decisions §1, §7): pagination and
// its edges, order and sort, the tag, industry and size filters, search over
// name, document and website (short terms included), and tenant isolation.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>

#include "e2e/companies/CompaniesSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

// One tenant with a known set of CRM companies, created oldest first:
//   acme   "acme Corp"      11.111  Software  1-10   https://acme.example  500    Enterprise,
//   Partner beta   "Beta LLC"       22.222  software  11-50  https://beta.io       null   partner
//   gamma  "gamma Inc"      AB-33   Retail    1-10   (none)                10000  smb
//   delta  "Delta 50%_off"  (none)  (none)    (none) http://delta.shop     0      (none)
struct Dataset {
  Account account;
  std::string acme, beta, gamma, delta;
};

const Dataset& dataset() {
  static const Dataset data = [] {
    HttpClient client(companiesServer().port());
    Dataset d;
    d.account = registerUser(client, "companies-list");
    const auto add = [&](Json body) {
      return createCrmCompany(client, d.account.token, body)["id"].asString();
    };
    d.acme = add(Json::object({{"name", "acme Corp"},
                               {"document", "11.111"},
                               {"industry", "Software"},
                               {"size", "1-10"},
                               {"website", "https://acme.example"},
                               {"annual_revenue", 500},
                               {"tags", Json::Array{"Enterprise", "Partner"}}}));
    d.beta = add(Json::object({{"name", "Beta LLC"},
                               {"document", "22.222"},
                               {"industry", "software"},
                               {"size", "11-50"},
                               {"website", "https://beta.io"},
                               {"tags", Json::Array{"partner"}}}));
    d.gamma = add(Json::object({{"name", "gamma Inc"},
                                {"document", "AB-33"},
                                {"industry", "Retail"},
                                {"size", "1-10"},
                                {"annual_revenue", 10000},
                                {"tags", Json::Array{"smb"}}}));
    d.delta = add(Json::object(
        {{"name", "Delta 50%_off"}, {"website", "http://delta.shop"}, {"annual_revenue", 0}}));
    return d;
  }();
  return data;
}

using Ids = std::vector<std::string>;

}  // namespace

class CompaniesListTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompaniesListTest);
  CPPUNIT_TEST(testNewestFirstWithMeta);
  CPPUNIT_TEST(testPagination);
  CPPUNIT_TEST(testPaginationRules);
  CPPUNIT_TEST(testSort);
  CPPUNIT_TEST(testTagIndustryAndSizeFilters);
  CPPUNIT_TEST(testSearch);
  CPPUNIT_TEST(testShortSearchTerms);
  CPPUNIT_TEST(testFiltersCombine);
  CPPUNIT_TEST(testOtherTenantsSeeNothing);
  CPPUNIT_TEST(testTotalFollowsCreatesAndDeletes);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override { client_ = std::make_unique<HttpClient>(companiesServer().port()); }
  void tearDown() override { client_.reset(); }

  Ids ids(const std::string& query) {
    return idsOf(getBody(*client_, dataset().account.token, "/v1/crm/companies?" + query));
  }

  void testNewestFirstWithMeta() {
    const Dataset& d = dataset();
    const HttpResult result = client_->get("/v1/crm/companies", bearer(d.account.token));
    E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    const Json body = result.json();
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.delta, d.gamma, d.beta, d.acme}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":4,"last_page":1})"),
                         body["meta"].dump());
    const Json one =
        E2E_ASSERT_DATA(200, client_->get("/v1/crm/companies/" + d.acme, bearer(d.account.token)));
    CPPUNIT_ASSERT_EQUAL(one.dump(), body["data"].asArray().back().dump());
  }

  void testPagination() {
    const Dataset& d = dataset();
    Json body = getBody(*client_, d.account.token, "/v1/crm/companies?per_page=3");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.delta, d.gamma, d.beta}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":3,"total":4,"last_page":2})"),
                         body["meta"].dump());
    CPPUNIT_ASSERT(ids("per_page=3&page=2") == (Ids{d.acme}));
    body = getBody(*client_, d.account.token, "/v1/crm/companies?per_page=3&page=3");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":3,"per_page":3,"total":4,"last_page":2})"),
                         body["meta"].dump());
    const Account fresh = registerUser(*client_, "companies-empty");
    body = getBody(*client_, fresh.token, "/v1/crm/companies");
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":0,"last_page":1})"),
                         body["meta"].dump());
  }

  void testPaginationRules() {
    const Dataset& d = dataset();
    for (const char* query : {"page=0", "page=x", "page=-2"}) {
      CRM_ASSERT_FIELD_ERROR(
          client_->get(std::string("/v1/crm/companies?") + query, bearer(d.account.token)), "page",
          "");
    }
    for (const char* query : {"per_page=0", "per_page=101", "per_page=2.5"}) {
      CRM_ASSERT_FIELD_ERROR(
          client_->get(std::string("/v1/crm/companies?") + query, bearer(d.account.token)),
          "per_page", "");
    }
  }

  void testSort() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(ids("sort=name") == (Ids{d.acme, d.beta, d.delta, d.gamma}));
    CPPUNIT_ASSERT(ids("sort=-name") == (Ids{d.gamma, d.delta, d.beta, d.acme}));
    // An unknown revenue sorts below zero.
    CPPUNIT_ASSERT(ids("sort=annual_revenue") == (Ids{d.beta, d.delta, d.acme, d.gamma}));
    CPPUNIT_ASSERT(ids("sort=-annual_revenue") == (Ids{d.gamma, d.acme, d.delta, d.beta}));
    CPPUNIT_ASSERT(ids("sort=created_at") == (Ids{d.acme, d.beta, d.gamma, d.delta}));
    CPPUNIT_ASSERT(ids("sort=-updated_at") == (Ids{d.delta, d.gamma, d.beta, d.acme}));
    CPPUNIT_ASSERT(ids("sort=-annual_revenue&per_page=2&page=2") == (Ids{d.delta, d.beta}));
    // decisions §13: every stored field sorts; tags (an array) and unknown
    // names do not.
    for (const char* bad : {"tags", "-industries", "revenue", "", "name%20"}) {
      CRM_ASSERT_FIELD_ERROR(
          client_->get(std::string("/v1/crm/companies?sort=") + bad, bearer(d.account.token)),
          "sort", "The sort field is not supported.");
    }
  }

  void testTagIndustryAndSizeFilters() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(ids("tag=PARTNER") == (Ids{d.beta, d.acme}));
    CPPUNIT_ASSERT(ids("tag=enterprise") == (Ids{d.acme}));
    CPPUNIT_ASSERT(ids("tag=part").empty());
    CPPUNIT_ASSERT(ids("industry=SOFTWARE") == (Ids{d.beta, d.acme}));
    CPPUNIT_ASSERT(ids("industry=retail") == (Ids{d.gamma}));
    CPPUNIT_ASSERT(ids("industry=soft").empty());  // exact, not a substring
    CPPUNIT_ASSERT(ids("size=1-10") == (Ids{d.gamma, d.acme}));
    CPPUNIT_ASSERT(ids("size=11-50") == (Ids{d.beta}));
    CPPUNIT_ASSERT(ids("size=1").empty());
    const Json body =
        getBody(*client_, d.account.token, "/v1/crm/companies?industry=software&per_page=1");
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":1,"total":2,"last_page":2})"),
                         body["meta"].dump());
  }

  void testSearch() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(ids("search=ACME") == (Ids{d.acme}));           // name and website
    CPPUNIT_ASSERT(ids("search=llc") == (Ids{d.beta}));            // name
    CPPUNIT_ASSERT(ids("search=11.1") == (Ids{d.acme}));           // document
    CPPUNIT_ASSERT(ids("search=ab-3") == (Ids{d.gamma}));          // document, any case
    CPPUNIT_ASSERT(ids("search=.example") == (Ids{d.acme}));       // website
    CPPUNIT_ASSERT(ids("search=https") == (Ids{d.beta, d.acme}));  // website
    CPPUNIT_ASSERT(ids("search=http") == (Ids{d.delta, d.beta, d.acme}));
    CPPUNIT_ASSERT(ids("search=0%25_o") == (Ids{d.delta}));  // "0%_o", literally
    CPPUNIT_ASSERT(ids("search=corp%2011").empty());         // fields do not run together
    CPPUNIT_ASSERT(ids("search=software").empty());          // industry is not searched
    CPPUNIT_ASSERT(ids("search=nothing").empty());
    const Json body =
        getBody(*client_, d.account.token, "/v1/crm/companies?search=http&per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.acme}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), body["meta"]["total"].asInt());
    CRM_ASSERT_FIELD_ERROR(
        client_->get("/v1/crm/companies?search=" + std::string(300, 'x'), bearer(d.account.token)),
        "search", "");
  }

  void testShortSearchTerms() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(ids("search=TA") == (Ids{d.delta, d.beta}));
    CPPUNIT_ASSERT(ids("search=33") == (Ids{d.gamma}));
    CPPUNIT_ASSERT(ids("search=%25") == (Ids{d.delta}));
    CPPUNIT_ASSERT(ids("search=_") == (Ids{d.delta}));
    CPPUNIT_ASSERT(ids("search=q").empty());
  }

  void testFiltersCombine() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(ids("industry=software&size=1-10") == (Ids{d.acme}));
    CPPUNIT_ASSERT(ids("tag=partner&search=beta") == (Ids{d.beta}));
    CPPUNIT_ASSERT(ids("industry=Software&tag=partner&size=11-50&sort=name") == (Ids{d.beta}));
    CPPUNIT_ASSERT(ids("size=1-10&search=ma") == (Ids{d.gamma}));
    CPPUNIT_ASSERT(ids("industry=retail&tag=partner").empty());
  }

  void testOtherTenantsSeeNothing() {
    const Dataset& d = dataset();
    const Account other = registerUser(*client_, "companies-list-other");
    createCrmCompany(*client_, other.token,
                     Json::object({{"name", "Acme Copy"},
                                   {"document", "11.111"},
                                   {"industry", "Software"},
                                   {"size", "1-10"},
                                   {"tags", Json::Array{"partner"}}}));
    for (const std::string query : {"", "search=acme", "search=11", "search=ta", "tag=partner",
                                    "industry=software", "size=1-10", "sort=name"}) {
      const Json body = getBody(*client_, other.token, "/v1/crm/companies?" + query);
      for (const std::string& id : {d.acme, d.beta, d.gamma, d.delta}) {
        CPPUNIT_ASSERT_MESSAGE(query, !contains(idsOf(body), id));
      }
      CPPUNIT_ASSERT_MESSAGE(query, body["meta"]["total"].asInt() <= 1);
    }
    CPPUNIT_ASSERT(ids("search=acme") == (Ids{d.acme}));
    CPPUNIT_ASSERT(ids("tag=partner") == (Ids{d.beta, d.acme}));
    for (const std::string& id : {d.acme, d.beta}) {
      E2E_ASSERT_ERROR(404, client_->get("/v1/crm/companies/" + id, bearer(other.token)));
    }
  }

  // The unfiltered list reads meta.total from crm_company_counts (kept by
  // triggers): it stays exact across creates, failed creates, deletes and
  // another tenant's writes, and agrees with a filtered list's COUNT(*).
  void testTotalFollowsCreatesAndDeletes() {
    const Account account = registerUser(*client_, "companies-total");
    const Account other = registerUser(*client_, "companies-total-other");
    const auto total = [&](const Account& who, const std::string& query = "") {
      return static_cast<int>(
          getBody(*client_, who.token, "/v1/crm/companies" + query)["meta"]["total"].asInt());
    };
    CPPUNIT_ASSERT_EQUAL(0, total(account));
    std::vector<std::string> made;
    for (const char* name : {"Alpha", "Bravo", "Charlie"}) {
      made.push_back(createCrmCompany(*client_, account.token,
                                      Json::object({{"name", name},
                                                    {"document", std::string("DOC-") + name},
                                                    {"industry", "Total"}}))["id"]
                         .asString());
    }
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    CPPUNIT_ASSERT_EQUAL(3, total(account, "?industry=total"));
    // A create that fails (duplicate document) rolls its count back.
    E2E_ASSERT_ERROR(409, client_->post("/v1/crm/companies",
                                        Json::object({{"name", "Dup"}, {"document", "DOC-Alpha"}}),
                                        bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    // Another tenant's writes change only its own total.
    createCrmCompany(*client_, other.token, Json::object({{"name", "Other 1"}}));
    const std::string otherId =
        createCrmCompany(*client_, other.token, Json::object({{"name", "Other 2"}}))["id"]
            .asString();
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    CPPUNIT_ASSERT_EQUAL(2, total(other));
    E2E_ASSERT_DATA(200, client_->del("/v1/crm/companies/" + otherId, bearer(other.token)));
    CPPUNIT_ASSERT_EQUAL(3, total(account));
    CPPUNIT_ASSERT_EQUAL(1, total(other));
    // Deletes, including a repeated one (404, nothing deleted).
    E2E_ASSERT_DATA(200, client_->del("/v1/crm/companies/" + made[0], bearer(account.token)));
    E2E_ASSERT_ERROR(404, client_->del("/v1/crm/companies/" + made[0], bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(2, total(account));
    CPPUNIT_ASSERT_EQUAL(2, total(account, "?industry=total"));
    CPPUNIT_ASSERT_EQUAL(2, total(account, "?per_page=1&page=2&sort=name"));
    for (std::size_t i = 1; i < made.size(); ++i) {
      E2E_ASSERT_DATA(200, client_->del("/v1/crm/companies/" + made[i], bearer(account.token)));
    }
    const Json empty = getBody(*client_, account.token, "/v1/crm/companies");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, empty["meta"]["total"].asInt());
    CPPUNIT_ASSERT(idsOf(empty).empty());
  }

 private:
  std::unique_ptr<HttpClient> client_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompaniesListTest);
