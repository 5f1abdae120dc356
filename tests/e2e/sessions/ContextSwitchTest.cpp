// The company-context switch cannot clone a session (issue 21): a switch to
// the company the token already resolves is that token's refresh (the
// family's next token; the old one is refreshed, so no sibling); a
// token that was refreshed already cannot switch (presenting it is reuse:
// the whole login ends, on every instance, and the log names no token); and
// a token a switch issued belongs to the login, so a reuse anywhere in it
// ends that token too. On PostgreSQL through two rapportd on one database.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/sessions/SessionsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::sessions;

namespace {

std::string refreshed(HttpClient& client, const std::string& token) {
  return E2E_ASSERT_DATA(200,
                         client.post("/v1/auth/refresh", Json::object(), bearer(token)))["token"]
      .asString();
}

HttpResult switchTo(HttpClient& client, const std::string& token, const std::string& companyId) {
  return client.post("/v1/auth/context", Json::object({{"company_id", companyId}}), bearer(token));
}

// "<tokens of `userId`>/<how many of them are revoked>".
std::string tokenCounts(const ServerProcess& server, const std::string& userId) {
  const auto rows = queryDatabase(
      server.databaseUrl(),
      "SELECT COUNT(*), COUNT(revoked_at) FROM tokens WHERE user_id = " + sqlQuote(userId));
  return rows.at(0).at(0) + "/" + rows.at(0).at(1);
}

}  // namespace

class ContextSwitchTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContextSwitchTest);
  CPPUNIT_TEST(testSwitchToTheSameCompanyIsItsRefresh);
  CPPUNIT_TEST(testSwitchWithARefreshedTokenEndsTheLogin);
  CPPUNIT_TEST(testASwitchedTokenEndsWithItsLogin);
  CPPUNIT_TEST_SUITE_END();

 public:
  static Pair& pair() {
    static Pair servers;
    return servers;
  }

  void testSwitchToTheSameCompanyIsItsRefresh() {
    HttpClient& a = *pair().a;
    const Account account = registerUser(a, "same");
    const Json data = E2E_ASSERT_DATA(200, switchTo(a, account.token, account.companyId));
    CPPUNIT_ASSERT_EQUAL(account.companyId, data["company_id"].asString());
    CPPUNIT_ASSERT_EQUAL(account.companyId, data["company"]["id"].asString());
    const std::string next = data["token"].asString();
    E2E_ASSERT_DATA(200, pair().b->get("/v1/auth/me", bearer(next)));
    // No sibling: the old token was refreshed by the switch, so showing it
    // to refresh (or switch) again is reuse and ends the whole login.
    CPPUNIT_ASSERT_EQUAL(std::string("2/0"), tokenCounts(*pair().first, account.userId));
    E2E_ASSERT_ERROR(401, a.post("/v1/auth/refresh", Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("2/2"), tokenCounts(*pair().first, account.userId));
    E2E_ASSERT_ERROR(401, a.get("/v1/auth/me", bearer(next)));
  }

  void testSwitchWithARefreshedTokenEndsTheLogin() {
    HttpClient& a = *pair().a;
    HttpClient& b = *pair().b;
    const Account account = registerUser(a, "switchreuse");
    const std::string second = createCompany(a, account.token, "Reuse Second");
    const std::string other =
        E2E_ASSERT_DATA(200, login(a, account.email, account.password))["token"].asString();
    const std::string next = refreshed(a, account.token);
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(next)));           // warm B
    E2E_ASSERT_DATA(200, a.get("/v1/auth/me", bearer(account.token)));  // in its grace
    // The refreshed token shown to switch: reuse, 401, the login is over.
    const auto reused = std::chrono::steady_clock::now();
    E2E_ASSERT_ERROR(401, switchTo(a, account.token, second));
    for (HttpClient* client : {&a, &b}) {
      CPPUNIT_ASSERT_MESSAGE(
          "the token of the refresh still works a second after the reuse",
          withinOneSecond([&] { return client->get("/v1/auth/me", bearer(next)).status; }, 401,
                          reused));
      E2E_ASSERT_ERROR(401, client->get("/v1/auth/me", bearer(account.token)));
      E2E_ASSERT_ERROR(401, client->post("/v1/auth/refresh", Json::object(), bearer(next)));
      E2E_ASSERT_ERROR(401, switchTo(*client, next, second));
      // Another login of the same user is another family.
      E2E_ASSERT_DATA(200, client->get("/v1/auth/me", bearer(other)));
    }
    // Nothing was issued for the second company; the login's two tokens are
    // revoked, the other login's is not.
    CPPUNIT_ASSERT_EQUAL(std::string("3/2"), tokenCounts(*pair().first, account.userId));
    // Logged as reuse, without the token.
    const std::string log = pair().first->log();
    CPPUNIT_ASSERT(!linesContaining(log, "context switch of an already refreshed token").empty());
    for (const std::string* token : {&account.token, &next}) {
      CPPUNIT_ASSERT(log.find(token->substr(4)) == std::string::npos);
    }
  }

  void testASwitchedTokenEndsWithItsLogin() {
    HttpClient& a = *pair().a;
    HttpClient& b = *pair().b;
    const Account account = registerUser(a, "sibling");
    const std::string second = createCompany(a, account.token, "Sibling Second");
    // A switch to another company: a token of the same login there. The
    // current token is untouched and refreshes once; the switched one lives
    // on beside the token of that refresh.
    const std::string switched = switchContext(a, account.token, second);
    const std::string next = refreshed(a, account.token);
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(switched)));  // warm B
    CPPUNIT_ASSERT_EQUAL(
        second,
        E2E_ASSERT_DATA(200, a.get("/v1/auth/me", bearer(switched)))["company_id"].asString());
    // A reuse of the chain (the first token refreshed again) ends the
    // switched token as well, on both instances.
    const auto reused = std::chrono::steady_clock::now();
    E2E_ASSERT_ERROR(401, a.post("/v1/auth/refresh", Json::object(), bearer(account.token)));
    for (HttpClient* client : {&a, &b}) {
      CPPUNIT_ASSERT_MESSAGE(
          "the switched token still works a second after the reuse",
          withinOneSecond([&] { return client->get("/v1/auth/me", bearer(switched)).status; }, 401,
                          reused));
      E2E_ASSERT_ERROR(401, client->get("/v1/auth/me", bearer(next)));
      E2E_ASSERT_ERROR(401, client->post("/v1/auth/refresh", Json::object(), bearer(switched)));
    }
    CPPUNIT_ASSERT_EQUAL(std::string("3/3"), tokenCounts(*pair().first, account.userId));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContextSwitchTest);
