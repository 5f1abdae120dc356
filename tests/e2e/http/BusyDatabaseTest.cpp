// A database that stays busy longer than rapportd waits (decisions §1: bad
// moments get a clear answer): 503 with Retry-After and the generic message,
// nothing half-written, and the same request works once the lock is gone.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

class BusyDatabaseTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BusyDatabaseTest);
  CPPUNIT_TEST(testWriteBlockedByAnotherWriterIs503);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testWriteBlockedByAnotherWriterIs503() {
    // SQLite only: there a lock wait ends after database.sqlite_busy_timeout_ms.
    // PostgreSQL waits for row locks as long as they are held.
    if (rapport::test::onPostgres()) return;
    const std::string database = rapport::test::freshDatabaseUrl("busy");
    ServerProcess server(
        probeSettings({{"database.url", database}, {"database.sqlite_busy_timeout_ms", "200"}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "busy");
    const auto tokens = [&] {
      return queryDatabase(database, "SELECT COUNT(*) FROM tokens").front().front();
    };
    const std::string tokensBefore = tokens();
    {
      SqliteWriteLock lock(database);
      // A login writes its token: it cannot, and says so.
      const HttpResult refused = login(client, account.email, account.password);
      E2E_ASSERT_ERROR(503, refused);
      CPPUNIT_ASSERT_EQUAL(std::string("1"), refused.header("Retry-After"));
      CPPUNIT_ASSERT_EQUAL(std::string("Service unavailable."),
                           refused.json()["message"].asString());
      // Reads do not wait for writers.
      E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    }
    CPPUNIT_ASSERT_EQUAL(tokensBefore, tokens());
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BusyDatabaseTest);
