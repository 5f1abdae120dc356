// Several rapportd on one database (decisions §12, README "On PostgreSQL"):
// what one instance does to a session, every instance honours at once
// (API Authentication 8: logout invalidates the token at once).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

class MultiInstanceTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MultiInstanceTest);
  CPPUNIT_TEST(testLogoutOnOneInstanceIsSeenByTheOther);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testLogoutOnOneInstanceIsSeenByTheOther() {
    const std::string database = rapport::test::freshDatabaseUrl("multi");
    ServerProcess first(generousSettings({{"database.url", database}}));
    ServerProcess second(generousSettings({{"database.url", database}}));
    HttpClient a(first.port());
    HttpClient b(second.port());

    const Account account = registerUser(a, "multi");
    // The second instance knows the token (and may have cached it).
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(account.token)));
    E2E_ASSERT_DATA(200, b.get("/v1/auth/me", bearer(account.token)));

    E2E_ASSERT_STATUS(200, a.post("/v1/auth/logout", Json::object(), bearer(account.token)));
    const HttpResult after = b.get("/v1/auth/me", bearer(account.token));
    E2E_ASSERT_ERROR(401, after);
    E2E_ASSERT_ERROR(401, b.post("/v1/auth/refresh", Json::object(), bearer(account.token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MultiInstanceTest);
