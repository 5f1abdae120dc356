// Headers every answer carries (decisions §1, API Limits): Content-Type,
// Content-Length, X-Request-Id, the rate-limit headers; company headers are
// ignored; health probes.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/common/Timely.h"
#include "e2e/http/HttpSuite.h"

using namespace rapport::e2e;

class HeadersTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(HeadersTest);
  CPPUNIT_TEST(testEveryAnswerCarriesTheCommonHeaders);
  CPPUNIT_TEST(testRateLimitHeadersOnEveryStatus);
  CPPUNIT_TEST(testSaneRequestIdIsEchoed);
  CPPUNIT_TEST(testUnsaneRequestIdIsReplaced);
  CPPUNIT_TEST(testRequestIdsAreUniqueAndLogged);
  CPPUNIT_TEST(testCompanyHeaderChangesNothing);
  CPPUNIT_TEST(testHealthAndReadiness);
  CPPUNIT_TEST(testSecretsAreNeverLogged);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryAnswerCarriesTheCommonHeaders() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "headers");
    const std::vector<std::pair<int, HttpResult>> answers = {
        {200, client.get("/v1/versions")},
        {200, client.get("/v1/auth/me", bearer(user.token))},
        {201, client.post("/v1/user/companies", Json::object({{"name", "Headers Two"}}),
                          bearer(user.token))},
        {400, client.send("POST", "/v1/auth/login", std::string("{"))},
        {401, client.get("/v1/auth/me")},
        {401, client.get("/v1/auth/me", bearer("not-a-token"))},
        {404, client.get("/v1/nope")},
        {405, client.del("/v1/versions")},
        {422, client.post("/v1/auth/login", Json::object())},
        {429, client.get("/v1/errors/sample?status=429", bearer(user.token))},
        {500, client.get("/v1/probe/boom", bearer(user.token))},
        {200, client.get("/healthz")},
        {200, client.get("/readyz")},
    };
    for (const auto& [status, answer] : answers) {
      E2E_ASSERT_STATUS(status, answer);
      E2E_ASSERT_COMMON_HEADERS(answer);
      E2E_ASSERT_JSON(answer);
    }
  }

  void testRateLimitHeadersOnEveryStatus() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "ratehdr");
    const std::vector<std::pair<int, HttpResult>> answers = {
        {200, client.get("/v1/auth/me", bearer(user.token))},
        {401, client.get("/v1/auth/me")},
        {404, client.get("/v1/nope", bearer(user.token))},
        {405, client.del("/v1/auth/me", bearer(user.token))},
        {422, client.post("/v1/user/companies", Json::object(), bearer(user.token))},
        {429, client.get("/v1/errors/sample?status=429", bearer(user.token))},
    };
    for (const auto& [status, answer] : answers) {
      E2E_ASSERT_STATUS(status, answer);
      E2E_ASSERT_RATE_HEADERS(answer);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(answer), std::int64_t(1000000),
                                   headerInt(answer, "X-RateLimit-Limit"));
    }
    // One token, one counter: Remaining goes down request by request within
    // a window. The server's 60 s window is aligned to the clock: when it
    // ended between the two requests (their X-RateLimit-Reset differ), the
    // pair is sent again, inside the next one.
    retryUntilTimely("two requests inside one rate-limit window", 3, [&](int) {
      const HttpResult first = client.get("/v1/auth/me", bearer(user.token));
      const HttpResult later = client.get("/v1/nope", bearer(user.token));
      if (headerInt(later, "X-RateLimit-Reset") != headerInt(first, "X-RateLimit-Reset")) {
        return false;
      }
      CPPUNIT_ASSERT_MESSAGE(describe(later), headerInt(later, "X-RateLimit-Remaining") <
                                                  headerInt(first, "X-RateLimit-Remaining"));
      return true;
    });
  }

  void testSaneRequestIdIsEchoed() {
    HttpClient client(httpServer().port());
    for (const std::string id : {"e2e-req.42_A", "0123456789abcdef", "a"}) {
      const HttpResult ok = client.get("/v1/versions", {{"X-Request-Id", id}});
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(ok), id, ok.header("X-Request-Id"));
      const HttpResult missing = client.get("/v1/nope", {{"X-Request-Id", id}});
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(missing), id, missing.header("X-Request-Id"));
    }
  }

  // An id that could forge log lines or bloat them is not echoed; the
  // answer still carries one.
  void testUnsaneRequestIdIsReplaced() {
    HttpClient client(httpServer().port());
    for (const std::string& id : {std::string("two words"), std::string("x=1 level=error"),
                                  std::string(300, 'a'), std::string("<script>")}) {
      const HttpResult result = client.get("/v1/versions", {{"X-Request-Id", id}});
      E2E_ASSERT_STATUS(200, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), !result.header("X-Request-Id").empty());
      CPPUNIT_ASSERT_MESSAGE(describe(result), result.header("X-Request-Id") != id);
    }
  }

  void testRequestIdsAreUniqueAndLogged() {
    HttpClient client(httpServer().port());
    std::set<std::string> ids;
    for (int i = 0; i < 5; ++i) ids.insert(client.get("/v1/versions").header("X-Request-Id"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), ids.size());

    const std::string id = "e2e-logged-" + randomHex(8);
    client.get("/v1/nope", {{"X-Request-Id", id}});
    const bool logged =
        waitUntil([&] { return !linesContaining(httpServer().log(), "req=" + id).empty(); },
                  std::chrono::seconds(5));
    CPPUNIT_ASSERT_MESSAGE("request id not in the log", logged);
  }

  // The company comes from the token alone (decisions §1, API Authentication 3).
  void testCompanyHeaderChangesNothing() {
    HttpClient client(httpServer().port());
    const Account alice = registerUser(client, "alice");
    const Account bob = registerUser(client, "bob");
    const Headers forged = bearer(bob.token, {{"X-Company-Id", alice.companyId},
                                              {"X-Tenant-Id", alice.companyId},
                                              {"Company-Id", alice.companyId}});

    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", forged));
    CPPUNIT_ASSERT_EQUAL(bob.companyId, me["company_id"].asString());

    const HttpResult created =
        client.post("/v1/probe/notes", Json::object({{"body", "alice's?"}}), bearer(alice.token));
    const std::string noteId = E2E_ASSERT_DATA(201, created)["id"].asString();
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/notes/" + noteId, forged));
    E2E_ASSERT_ERROR(404, client.get("/v1/user/companies/" + alice.companyId, forged));

    // What bob writes with the header lands in bob's company.
    const HttpResult bobs =
        client.post("/v1/probe/notes", Json::object({{"body", "bob's"}}), forged);
    const std::string bobNote = E2E_ASSERT_DATA(201, bobs)["id"].asString();
    E2E_ASSERT_DATA(200, client.get("/v1/probe/notes/" + bobNote, bearer(bob.token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/notes/" + bobNote, bearer(alice.token)));

    const Json companies = E2E_ASSERT_DATA(200, client.get("/v1/user/companies", forged));
    CPPUNIT_ASSERT(!contains(pluck(companies, "id"), alice.companyId));
  }

  // README: tokens and passwords are never logged (not even in paths or
  // queries that carry them by mistake).
  void testSecretsAreNeverLogged() {
    HttpClient client(httpServer().port());
    const Account account = registerUser(client, "secrets");
    const Json session = E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    const std::string token = session["token"].asString();
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(token)));
    E2E_ASSERT_ERROR(401, login(client, account.email, account.password + "-wrong"));
    client.get("/v1/nope?token=" + token + "&password=" + account.password);
    client.post("/v1/auth/refresh", Json::object(), bearer(token));
    // Wait until the last request's line is written, then look.
    const std::string id = "e2e-secrets-" + randomHex(8);
    client.get("/v1/versions", {{"X-Request-Id", id}});
    CPPUNIT_ASSERT(waitUntil([&] { return !linesContaining(httpServer().log(), id).empty(); },
                             std::chrono::seconds(5)));
    const std::string log = httpServer().log();
    for (const std::string& secret : {token, account.token, account.password}) {
      CPPUNIT_ASSERT_MESSAGE("a secret is in the log: " + secret,
                             log.find(secret) == std::string::npos);
    }
  }

  void testHealthAndReadiness() {
    HttpClient client(httpServer().port());
    for (const std::string path : {"/healthz", "/readyz"}) {
      const HttpResult result = client.get(path);
      E2E_ASSERT_STATUS(200, result);
      E2E_ASSERT_JSON(result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), !result.header("X-Request-Id").empty());
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(HeadersTest);
