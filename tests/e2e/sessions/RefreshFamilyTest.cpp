// Refresh through rapportd (issue 8): a token refreshes once; refreshing it
// again is reuse, which ends the whole login (every token of its family) on
// every instance; auth.max_session_age caps a login, refreshes included.
#include <cppunit/extensions/HelperMacros.h>

#include <thread>

#include "e2e/common/Timely.h"
#include "e2e/sessions/SessionsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::sessions;

class RefreshFamilyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RefreshFamilyTest);
  CPPUNIT_TEST(testReuseEndsTheFamilyOnBothInstances);
  CPPUNIT_TEST(testReuseAfterTheGraceStillEndsTheFamily);
  CPPUNIT_TEST(testRefreshStopsAtMaxSessionAge);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testReuseEndsTheFamilyOnBothInstances() {
    Pair pair;
    HttpClient& a = *pair.a;
    HttpClient& b = *pair.b;
    const Account account = registerUser(a, "reuse");
    const std::string other =
        E2E_ASSERT_DATA(200, login(a, account.email, account.password))["token"].asString();
    const std::string t0 = account.token;
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(t0)));  // warm B
    const std::string t1 = refresh(a, t0);
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(t1)));
    E2E_ASSERT_DATA(200, a.get("/v1/auth/me", bearer(t0)));  // in its grace
    const std::string t2 = refresh(b, t1);                   // refreshed on B this time
    E2E_ASSERT_DATA(200, a.get("/v1/auth/me", bearer(t2)));

    // t1 again, on A: reuse. 401, and the login is over everywhere.
    const auto reused = std::chrono::steady_clock::now();
    E2E_ASSERT_ERROR(401, a.post("/v1/auth/refresh", Json::object(), bearer(t1)));
    for (HttpClient* client : {&a, &b}) {
      CPPUNIT_ASSERT_MESSAGE(
          "the family's newest token still works a second after the reuse",
          withinOneSecond([&] { return client->get("/v1/auth/me", bearer(t2)).status; }, 401,
                          reused));
      for (const std::string* token : {&t0, &t1, &t2}) {
        E2E_ASSERT_ERROR(401, client->get("/v1/auth/me", bearer(*token)));
        E2E_ASSERT_ERROR(401, client->post("/v1/auth/refresh", Json::object(), bearer(*token)));
      }
      // Another login of the same user is another family.
      E2E_ASSERT_DATA(200, client->get("/v1/auth/me", bearer(other)));
    }
    // The database agrees: the three tokens of the family are revoked.
    const auto rows = queryDatabase(
        pair.first->databaseUrl(),
        "SELECT COUNT(*) FROM tokens WHERE revoked_at IS NOT NULL AND family_id = (SELECT "
        "family_id FROM tokens WHERE replaced_by IS NOT NULL ORDER BY created_at LIMIT 1)");
    CPPUNIT_ASSERT_EQUAL(std::string("3"), rows.at(0).at(0));
    // And the server logged it, without the token.
    const std::string log = pair.first->log();
    CPPUNIT_ASSERT(!linesContaining(log, "already refreshed token").empty());
    for (const std::string* token : {&t0, &t1, &t2}) {
      CPPUNIT_ASSERT(log.find(token->substr(4)) == std::string::npos);
    }
  }

  void testReuseAfterTheGraceStillEndsTheFamily() {
    // auth.refresh_grace = 1: the old token stops authenticating after a
    // second, but presenting it to refresh is still recognised as reuse.
    Pair pair(ServerProcess::Settings{{"auth.refresh_grace", "1"}});
    HttpClient& a = *pair.a;
    HttpClient& b = *pair.b;
    const Account account = registerUser(a, "late");
    const std::string fresh = refresh(a, account.token);
    CPPUNIT_ASSERT(
        waitUntil([&] { return a.get("/v1/auth/me", bearer(account.token)).status == 401; },
                  std::chrono::seconds(3)));
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(fresh)));  // warm B
    E2E_ASSERT_ERROR(401, a.post("/v1/auth/refresh", Json::object(), bearer(account.token)));
    const auto reused = std::chrono::steady_clock::now();
    CPPUNIT_ASSERT(
        withinOneSecond([&] { return b.get("/v1/auth/me", bearer(fresh)).status; }, 401, reused));
    E2E_ASSERT_ERROR(401, a.get("/v1/auth/me", bearer(fresh)));
  }

  void testRefreshStopsAtMaxSessionAge() {
    // A login lasts 3 s here: the first token is clipped to it, each refresh
    // hands out what is left, and with less than a second left refresh
    // answers 401; the last token then dies at the cap. A new login starts
    // a new session. An attempt too slow to see the last token still
    // working before the cap is made again with a new login.
    ServerProcess server(generousSettings({{"auth.max_session_age", "3"}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "capped");
    std::chrono::steady_clock::time_point started;
    std::string token;
    retryUntilTimely("the last token of a 3 s session before the cap", 3, [&](int) {
      started = std::chrono::steady_clock::now();
      token = refreshUntilRefused(client, account, started);
      // The refusal was no reuse: the last token works until the cap...
      const HttpResult beforeTheCap = client.get("/v1/auth/me", bearer(token));
      if (std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(2800)) {
        return false;
      }
      E2E_ASSERT_DATA(200, beforeTheCap);
      return true;
    });
    // ...and not after it.
    CPPUNIT_ASSERT(waitUntil([&] { return client.get("/v1/auth/me", bearer(token)).status == 401; },
                             std::chrono::seconds(3)));
    CPPUNIT_ASSERT(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(2900));
    const Json again = E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, again["expires_in"].asInt());
  }

 private:
  // Logs in (a 3 s session that began at or after `started`) and refreshes
  // at the pace of a client until refresh answers 401, checking each
  // answer; returns the last token.
  static std::string refreshUntilRefused(HttpClient& client, const Account& account,
                                         std::chrono::steady_clock::time_point started) {
    const Json first = E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, first["expires_in"].asInt());
    std::string token = first["token"].asString();
    std::int64_t lastExpiresIn = 3;
    int refreshed = 0;
    for (;;) {
      const HttpResult result = client.post("/v1/auth/refresh", Json::object(), bearer(token));
      if (result.status == 401) break;
      const Json data = E2E_ASSERT_DATA(200, result);
      CPPUNIT_ASSERT(data["expires_in"].asInt() <= lastExpiresIn);
      CPPUNIT_ASSERT(data["expires_in"].asInt() >= 1);
      lastExpiresIn = data["expires_in"].asInt();
      token = data["token"].asString();
      ++refreshed;
      CPPUNIT_ASSERT_MESSAGE(
          "refresh still works 3 s into a 3 s session",
          std::chrono::steady_clock::now() - started < std::chrono::milliseconds(3000));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the pace of the client
    }
    const auto refused = std::chrono::steady_clock::now() - started;
    CPPUNIT_ASSERT(refreshed >= 3);
    CPPUNIT_ASSERT_MESSAGE("refresh refused with more than a second of the session left",
                           refused >= std::chrono::milliseconds(1900));
    return token;
  }

  static std::string refresh(HttpClient& client, const std::string& token) {
    return E2E_ASSERT_DATA(200,
                           client.post("/v1/auth/refresh", Json::object(), bearer(token)))["token"]
        .asString();
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RefreshFamilyTest);
