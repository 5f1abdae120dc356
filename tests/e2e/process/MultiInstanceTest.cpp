// Several rapportd on one database (decisions §12, README "On PostgreSQL"):
// what one instance does to a session, every instance honours at once
// (API Authentication 8: logout invalidates the token at once). The same
// holds for the other revocations: a password change (every other token of
// the user) and a member's removal (the member's tokens for that company).
//
// On PostgreSQL the revoking instance sends a NOTIFY with its commit and every
// other instance drops the token from its cache within milliseconds
// (TokenService.h, issue 8): the other instance refuses the token within a
// second, asserted by polling. A SQLite file
// serves one rapportd (TokenService.h, docs/api-choices.md): there both
// instances run with auth.token_cache_ttl=0, the documented way to make an
// instance read every token from the file.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

namespace {

// Two instances on one fresh database.
struct Pair {
  explicit Pair(const std::string& label)
      : database(rapport::test::freshDatabaseUrl(label)),
        first(settings(database)),
        second(settings(database)),
        a(first.port()),
        b(second.port()) {}

  static ServerProcess::Settings settings(const std::string& database) {
    ServerProcess::Settings s{{"database.url", database}};
    if (!rapport::test::onPostgres()) s.emplace("auth.token_cache_ttl", "0");
    return generousSettings(std::move(s));
  }

  std::string database;
  ServerProcess first;
  ServerProcess second;
  HttpClient a;
  HttpClient b;
};

// Waits (up to a second: revocation notices are asynchronous) until `path`
// answers 401 for `token`, then asserts the 401 envelope.
void expectRevoked(HttpClient& client, const std::string& path, const std::string& token) {
  waitUntil([&] { return client.get(path, bearer(token)).status == 401; }, std::chrono::seconds(1));
  E2E_ASSERT_ERROR(401, client.get(path, bearer(token)));
}

}  // namespace

class MultiInstanceTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MultiInstanceTest);
  CPPUNIT_TEST(testLogoutOnOneInstanceIsSeenByTheOther);
  CPPUNIT_TEST(testPasswordChangeOnOneInstanceIsSeenByTheOther);
  CPPUNIT_TEST(testMemberRemovalOnOneInstanceIsSeenByTheOther);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testLogoutOnOneInstanceIsSeenByTheOther() {
    Pair pair("multi");
    HttpClient& a = pair.a;
    HttpClient& b = pair.b;

    const Account account = registerUser(a, "multi");
    // The second instance knows the token (and may have cached it).
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(account.token)));
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(account.token)));

    E2E_ASSERT_STATUS(200, a.post("/v1/auth/logout", Json::object(), bearer(account.token)));
    expectRevoked(b, "/v1/auth/me", account.token);
    E2E_ASSERT_ERROR(401, b.post("/v1/auth/refresh", Json::object(), bearer(account.token)));
  }

  void testPasswordChangeOnOneInstanceIsSeenByTheOther() {
    Pair pair("multipw");
    const Account account = registerUser(pair.a, "multipw");
    const std::string other =
        E2E_ASSERT_DATA(200, login(pair.b, account.email, account.password))["token"].asString();
    E2E_ASSERT_DATA(200, pair.b.get("/v1/auth/me", bearer(other)));  // cached on b
    const std::string fresh = "another long secret";
    E2E_ASSERT_STATUS(200, pair.a.patch("/v1/user/password",
                                        Json::object({{"current_password", account.password},
                                                      {"password", fresh},
                                                      {"password_confirmation", fresh}}),
                                        bearer(account.token)));
    expectRevoked(pair.b, "/v1/auth/me", other);
    E2E_ASSERT_DATA(200, pair.b.get("/v1/auth/me", bearer(account.token)));
  }

  void testMemberRemovalOnOneInstanceIsSeenByTheOther() {
    Pair pair("multimember");
    const Account owner = registerUser(pair.a, "multiowner");
    const Account bob = registerUser(pair.a, "multibob");
    E2E_ASSERT_DATA(201, pair.a.post("/v1/company/members",
                                     Json::object({{"email", bob.email}, {"role", "admin"}}),
                                     bearer(owner.token)));
    const std::string bobHere = switchContext(pair.b, bob.token, owner.companyId);
    E2E_ASSERT_DATA(200, pair.b.get("/v1/company/members", bearer(bobHere)));  // cached on b
    E2E_ASSERT_STATUS(200, pair.a.del("/v1/company/members/" + bob.userId, bearer(owner.token)));
    expectRevoked(pair.b, "/v1/company/members", bobHere);
    E2E_ASSERT_ERROR(401, pair.b.get("/v1/auth/me", bearer(bobHere)));
    E2E_ASSERT_DATA(200, pair.b.get("/v1/auth/me", bearer(bob.token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MultiInstanceTest);
