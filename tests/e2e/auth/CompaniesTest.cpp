// The user's companies (decisions §2) and the company-context switch (API
// POST /auth/context, Bearer token states; decisions §3).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/auth/AuthSuite.h"
#include "rapport/ids.h"

using namespace rapport::e2e;

class CompaniesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompaniesTest);
  CPPUNIT_TEST(testCreateCompany);
  CPPUNIT_TEST(testCreateCompanyValidates);
  CPPUNIT_TEST(testListCompaniesWithRolesAndMeta);
  CPPUNIT_TEST(testListIsNewestFirstAndSortable);
  CPPUNIT_TEST(testPagePastTheEnd);
  CPPUNIT_TEST(testShowCompanyHasMembersCount);
  CPPUNIT_TEST(testUsersNeverSeeEachOthersCompanies);
  CPPUNIT_TEST(testContextSwitch);
  CPPUNIT_TEST(testContextSwitchRefusals);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCreateCompany() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "create");
    const HttpResult result = client.post(
        "/v1/user/companies", Json::object({{"name", "Second Co"}}), bearer(account.token));
    const Json data = E2E_ASSERT_DATA(201, result);
    CPPUNIT_ASSERT_MESSAGE(data.dump(), rapport::hasPrefix(data["id"].asString(), "comp_"));
    CPPUNIT_ASSERT(data["id"].asString() != account.companyId);
    CPPUNIT_ASSERT_EQUAL(std::string("Second Co"), data["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), data["role"].asString());
    // The token keeps resolving the company it was issued for.
    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(account.companyId, me["company_id"].asString());
  }

  void testCreateCompanyValidates() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "createbad");
    for (const Json& body :
         {Json::object(), Json::object({{"name", ""}}), Json::object({{"name", 12}})}) {
      const HttpResult result = client.post("/v1/user/companies", body, bearer(account.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("name"));
    }
    E2E_ASSERT_ERROR(401, client.post("/v1/user/companies", Json::object({{"name", "No Token"}})));
  }

  void testListCompaniesWithRolesAndMeta() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "list");
    const std::string second = createCompany(client, account.token, "Listed Second");
    const HttpResult result = client.get("/v1/user/companies", bearer(account.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    const Json body = result.json();
    CPPUNIT_ASSERT_MESSAGE(describe(result), data.isArray());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), data.size());
    const auto ids = pluck(data, "id");
    CPPUNIT_ASSERT(contains(ids, account.companyId));
    CPPUNIT_ASSERT(contains(ids, second));
    for (const auto& company : data.asArray()) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(company.dump(), std::string("owner"),
                                   company["role"].asString());
      CPPUNIT_ASSERT_MESSAGE(company.dump(), company["name"].isString());
      E2E_ASSERT_ISO_UTC(company["created_at"]);
    }
    const Json& meta = body["meta"];
    CPPUNIT_ASSERT_MESSAGE(describe(result), meta.isObject());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), meta["current_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(20), meta["per_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), meta["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), meta["last_page"].asInt());

    // Pagination rules (decisions §1).
    const HttpResult paged =
        client.get("/v1/user/companies?per_page=1&page=2", bearer(account.token));
    const Json pagedData = E2E_ASSERT_DATA(200, paged);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), pagedData.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), paged.json()["meta"]["last_page"].asInt());
    E2E_ASSERT_ERROR(422, client.get("/v1/user/companies?per_page=101", bearer(account.token)));
    E2E_ASSERT_ERROR(422, client.get("/v1/user/companies?page=0", bearer(account.token)));
  }

  // decisions §1: lists are newest first unless stated; sort=field or
  // sort=-field picks another order; an unsupported field answers 422.
  void testListIsNewestFirstAndSortable() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "order");
    const std::string second = createCompany(client, account.token, "Order Second");
    const std::string third = createCompany(client, account.token, "Order Third");
    const std::vector<std::string> newestFirst = {third, second, account.companyId};
    const std::vector<std::string> oldestFirst = {account.companyId, second, third};

    const auto byDefault =
        pluck(E2E_ASSERT_DATA(200, client.get("/v1/user/companies", bearer(account.token))), "id");
    CPPUNIT_ASSERT_MESSAGE("default order is not newest first", byDefault == newestFirst);
    const auto ascending =
        pluck(E2E_ASSERT_DATA(
                  200, client.get("/v1/user/companies?sort=created_at", bearer(account.token))),
              "id");
    CPPUNIT_ASSERT_MESSAGE("sort=created_at is not oldest first", ascending == oldestFirst);
    const auto descending =
        pluck(E2E_ASSERT_DATA(
                  200, client.get("/v1/user/companies?sort=-created_at", bearer(account.token))),
              "id");
    CPPUNIT_ASSERT_MESSAGE("sort=-created_at is not newest first", descending == newestFirst);

    const HttpResult bad = client.get("/v1/user/companies?sort=password", bearer(account.token));
    const Json error = E2E_ASSERT_ERROR(422, bad);
    CPPUNIT_ASSERT_MESSAGE(describe(bad), error["errors"].contains("sort"));
  }

  // decisions §1: a page past the end is an empty data with true meta.
  void testPagePastTheEnd() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "pastend");
    const HttpResult result = client.get("/v1/user/companies?page=5", bearer(account.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), data.isArray() && data.size() == 0);
    const Json meta = result.json()["meta"];
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), meta["current_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(20), meta["per_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), meta["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), meta["last_page"].asInt());
  }

  void testShowCompanyHasMembersCount() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "show");
    const HttpResult result =
        client.get("/v1/user/companies/" + account.companyId, bearer(account.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_EQUAL(account.companyId, data["id"].asString());
    CPPUNIT_ASSERT_EQUAL(account.companyName, data["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), data["role"].asString());
    CPPUNIT_ASSERT_MESSAGE(data.dump(), data["members_count"].isInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), data["members_count"].asInt());
    E2E_ASSERT_ISO_UTC(data["created_at"]);
    E2E_ASSERT_ERROR(404,
                     client.get("/v1/user/companies/comp_doesnotexist", bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/user/companies/cont_wrongprefix", bearer(account.token)));
  }

  void testUsersNeverSeeEachOthersCompanies() {
    HttpClient client(authServer().port());
    const Account alice = registerUser(client, "alice");
    const Account bob = registerUser(client, "bob");
    const std::string aliceSecond = createCompany(client, alice.token, "Alice Private");

    const auto bobs =
        pluck(E2E_ASSERT_DATA(200, client.get("/v1/user/companies", bearer(bob.token))), "id");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), bobs.size());
    CPPUNIT_ASSERT_EQUAL(bob.companyId, bobs[0]);
    const auto alices =
        pluck(E2E_ASSERT_DATA(200, client.get("/v1/user/companies", bearer(alice.token))), "id");
    CPPUNIT_ASSERT(!contains(alices, bob.companyId));

    for (const std::string& id : {alice.companyId, aliceSecond}) {
      E2E_ASSERT_ERROR(404, client.get("/v1/user/companies/" + id, bearer(bob.token)));
    }
    E2E_ASSERT_ERROR(404, client.get("/v1/user/companies/" + bob.companyId, bearer(alice.token)));
  }

  void testContextSwitch() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "context");
    const std::string second = createCompany(client, account.token, "Context Second");

    const HttpResult result = client.post(
        "/v1/auth/context", Json::object({{"company_id", second}}), bearer(account.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_TOKEN(data, 3600);
    CPPUNIT_ASSERT_EQUAL(second, data["company_id"].asString());
    CPPUNIT_ASSERT_EQUAL(second, data["company"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Context Second"), data["company"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), data["company"]["role"].asString());
    const std::string switched = data["token"].asString();
    CPPUNIT_ASSERT(switched != account.token);

    // The new token resolves the new company alone; the old one keeps its own.
    const Json meNew = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(switched)));
    CPPUNIT_ASSERT_EQUAL(second, meNew["company_id"].asString());
    CPPUNIT_ASSERT_EQUAL(account.userId, meNew["id"].asString());
    const Json meOld = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(account.companyId, meOld["company_id"].asString());

    // And back again, from the switched token.
    const std::string back = switchContext(client, switched, account.companyId);
    const Json meBack = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(back)));
    CPPUNIT_ASSERT_EQUAL(account.companyId, meBack["company_id"].asString());
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(switched)));
  }

  void testContextSwitchRefusals() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "refusals");
    const Account stranger = registerUser(client, "stranger");

    const HttpResult foreign =
        client.post("/v1/auth/context", Json::object({{"company_id", stranger.companyId}}),
                    bearer(account.token));
    E2E_ASSERT_ERROR(403, foreign);
    CPPUNIT_ASSERT_EQUAL(std::string("Forbidden"), foreign.reason);

    E2E_ASSERT_ERROR(404, client.post("/v1/auth/context",
                                      Json::object({{"company_id", "comp_" + randomHex(20)}}),
                                      bearer(account.token)));

    for (const Json& body :
         {Json::object(), Json::object({{"company_id", ""}}), Json::object({{"company_id", 7}})}) {
      const HttpResult result = client.post("/v1/auth/context", body, bearer(account.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("company_id"));
    }

    E2E_ASSERT_ERROR(
        401, client.post("/v1/auth/context", Json::object({{"company_id", account.companyId}})));
    // The refusals did not disturb the caller's token.
    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(account.companyId, me["company_id"].asString());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompaniesTest);
