// Revocation and role changes reach every instance within a second
// (issue 8; TokenService.h, RevocationListener.h). On PostgreSQL two rapportd
// share one database: a change made through A shows on B, whose cache was
// warmed with a successful request first; B is polled every 50 ms and the
// one-second deadline is asserted. On SQLite, the single-instance versions.
#include <cppunit/extensions/HelperMacros.h>

#include <thread>

#include "e2e/sessions/SessionsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::sessions;

class CrossInstanceTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CrossInstanceTest);
  CPPUNIT_TEST(testRemovedMemberIs401OnBWithinASecond);
  CPPUNIT_TEST(testDemotedAdminIs403OnBWithinASecond);
  CPPUNIT_TEST(testLogoutOnAIs401OnBWithinASecond);
  CPPUNIT_TEST(testPasswordChangeOnAEndsOtherTokensOnB);
  CPPUNIT_TEST(testInstancesListenForNotices);
  CPPUNIT_TEST_SUITE_END();

 public:
  // One pair of servers for the whole suite (each test uses its own users).
  static Pair& pair() {
    static Pair servers;
    return servers;
  }

  void testRemovedMemberIs401OnBWithinASecond() {
    HttpClient& a = *pair().a;
    HttpClient& b = *pair().b;
    const Account owner = registerUser(a, "owner");
    const Member member = addMember(a, owner, "member");
    E2E_ASSERT_DATA(200, b.get("/v1/company/members", bearer(member.token)));  // warm B
    E2E_ASSERT_DATA(200, b.get("/v1/company/members", bearer(member.token)));
    const auto removed = std::chrono::steady_clock::now();
    E2E_ASSERT_STATUS(200,
                      a.del("/v1/company/members/" + member.account.userId, bearer(owner.token)));
    CPPUNIT_ASSERT_MESSAGE(
        "the removed member's token still works on B a second after the removal",
        withinOneSecond([&] { return b.get("/v1/company/members", bearer(member.token)).status; },
                        401, removed));
    E2E_ASSERT_ERROR(401, b.get("/v1/auth/me", bearer(member.token)));
    // The member's own company is untouched.
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(member.account.token)));
  }

  void testDemotedAdminIs403OnBWithinASecond() {
    HttpClient& a = *pair().a;
    HttpClient& b = *pair().b;
    const Account owner = registerUser(a, "owner");
    const Member admin = addMember(a, owner, "admin");
    // An admin-only route that changes nothing: adding an unknown e-mail is
    // a 404 for an admin, and a 403 (before the handler) for a member.
    const Json nobody = Json::object({{"email", uniqueEmail("nobody")}, {"role", "member"}});
    auto tryAdd = [&] { return b.post("/v1/company/members", nobody, bearer(admin.token)).status; };
    E2E_ASSERT_ERROR(404, b.post("/v1/company/members", nobody, bearer(admin.token)));  // warm B
    const auto demoted = std::chrono::steady_clock::now();
    E2E_ASSERT_DATA(200, a.patch("/v1/company/members/" + admin.account.userId,
                                 Json::object({{"role", "member"}}), bearer(owner.token)));
    CPPUNIT_ASSERT_MESSAGE("the demoted admin still adds members on B a second later",
                           withinOneSecond(tryAdd, 403, demoted));
    E2E_ASSERT_ERROR(403, b.post("/v1/company/members", nobody, bearer(admin.token)));
    // Still a member: reading works.
    E2E_ASSERT_DATA(200, b.get("/v1/company/members", bearer(admin.token)));
  }

  void testLogoutOnAIs401OnBWithinASecond() {
    HttpClient& a = *pair().a;
    HttpClient& b = *pair().b;
    const Account account = registerUser(a, "logout");
    const std::string other =
        E2E_ASSERT_DATA(200, login(a, account.email, account.password))["token"].asString();
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(account.token)));  // warm B
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(other)));
    const auto loggedOut = std::chrono::steady_clock::now();
    const HttpResult out = a.post("/v1/auth/logout", Json::object(), bearer(account.token));
    CPPUNIT_ASSERT_EQUAL(200, out.status);
    CPPUNIT_ASSERT_MESSAGE(
        "the logged-out token still works on B a second after the logout",
        withinOneSecond([&] { return b.get("/v1/auth/me", bearer(account.token)).status; }, 401,
                        loggedOut));
    E2E_ASSERT_ERROR(401, b.post("/v1/auth/refresh", Json::object(), bearer(account.token)));
    // Only that token: the user's other session goes on.
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(other)));
  }

  void testPasswordChangeOnAEndsOtherTokensOnB() {
    HttpClient& a = *pair().a;
    HttpClient& b = *pair().b;
    const Account account = registerUser(a, "password");
    const std::string other =
        E2E_ASSERT_DATA(200, login(a, account.email, account.password))["token"].asString();
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(other)));  // warm B
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(account.token)));
    const std::string next = "Quiet-Lantern-" + randomHex(8);
    const auto changed = std::chrono::steady_clock::now();
    E2E_ASSERT_STATUS(200, a.patch("/v1/user/password",
                                   Json::object({{"current_password", account.password},
                                                 {"password", next},
                                                 {"password_confirmation", next}}),
                                   bearer(account.token)));
    CPPUNIT_ASSERT_MESSAGE(
        "another session still works on B a second after the password change",
        withinOneSecond([&] { return b.get("/v1/auth/me", bearer(other)).status; }, 401, changed));
    // The token that made the change keeps working, there too.
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(account.token)));
  }

  void testInstancesListenForNotices() {
    // Each PostgreSQL instance says in its log that notices are live (and
    // an SQLite one has no listener at all).
    const std::string marker = "revocation notices live";
    const bool listening = waitUntil(
        [&] {
          return !linesContaining(pair().first->log(), marker).empty() &&
                 (!pair().second || !linesContaining(pair().second->log(), marker).empty());
        },
        std::chrono::seconds(5));
    if (rapport::test::onPostgres()) {
      CPPUNIT_ASSERT(listening);
    } else {
      CPPUNIT_ASSERT(linesContaining(pair().first->log(), marker).empty());
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CrossInstanceTest);
