// A database that stays busy longer than rapportd waits (decisions §1: bad
// moments get a clear answer): 503 with Retry-After and the generic message,
// nothing half-written, and the same request works once the lock is gone.
// SQLite: another connection holds the write lock longer than
// database.sqlite_busy_timeout_ms. PostgreSQL: another connection holds a
// table or row lock longer than database.lock_timeout_ms (the sessions'
// lock_timeout; SQLSTATE 55P03 is "busy").
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/Data/PostgreSQL/Connector.h>
#include <Poco/Data/Session.h>

#include <chrono>
#include <future>
#include <string>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

namespace {

// What rapportd is told to wait for a lock here (database.lock_timeout_ms),
// and the bound the tests hold it to: below the default of 5000 ms, so the
// test fails if the key were not honoured, and far below the time the lock
// is held.
constexpr const char* kLockTimeoutMs = "300";
constexpr std::chrono::seconds kAnswerWithin{3};

// A PostgreSQL session, outside rapportd, holding `lockSql` in an open
// transaction until destroyed: what an operator's maintenance or a stuck
// client of the same database looks like to rapportd.
class PostgresLock {
 public:
  PostgresLock(const std::string& databaseUrl, const std::string& lockSql)
      : session_(connect(databaseUrl)) {
    session_ << "BEGIN", Poco::Data::Keywords::now;
    session_ << lockSql, Poco::Data::Keywords::now;
    session_ << "SELECT pg_backend_pid()", Poco::Data::Keywords::into(pid_),
        Poco::Data::Keywords::now;
  }
  ~PostgresLock() {
    try {
      session_ << "ROLLBACK", Poco::Data::Keywords::now;
    } catch (...) {
      // Closing the session releases the lock as well.
    }
  }
  PostgresLock(const PostgresLock&) = delete;
  PostgresLock& operator=(const PostgresLock&) = delete;

  // True once another backend waits for a lock this session holds.
  bool blocksSomeone(const std::string& databaseUrl) const {
    return !queryDatabase(databaseUrl,
                          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND " +
                              std::to_string(pid_) + " = ANY(pg_blocking_pids(pid))")
                .empty();
  }

 private:
  static Poco::Data::Session connect(const std::string& databaseUrl) {
    Poco::Data::PostgreSQL::Connector::registerConnector();
    return Poco::Data::Session("postgresql",
                               rapport::test::pocoPostgresConnectionString(databaseUrl));
  }

  Poco::Data::Session session_;
  int pid_ = 0;
};

// Sends `request` on its own connection while `lock` is held, checks that
// rapportd really waits for that lock, and returns the answer and how long
// it took.
template <typename Request>
std::pair<HttpResult, std::chrono::steady_clock::duration> answerBehind(
    const PostgresLock& lock, const std::string& databaseUrl, int port, Request request) {
  const auto started = std::chrono::steady_clock::now();
  auto answer = std::async(std::launch::async, [&] {
    HttpClient client(port);
    return request(client);
  });
  const bool waited = waitUntil(
      [&] {
        return lock.blocksSomeone(databaseUrl) ||
               answer.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
      },
      kAnswerWithin);
  CPPUNIT_ASSERT_MESSAGE("rapportd never waited for the lock",
                         waited && lock.blocksSomeone(databaseUrl));
  HttpResult result = answer.get();
  return {result, std::chrono::steady_clock::now() - started};
}

void assertBusy(const HttpResult& result) {
  E2E_ASSERT_ERROR(503, result);
  CPPUNIT_ASSERT_EQUAL(std::string("1"), result.header("Retry-After"));
  CPPUNIT_ASSERT_EQUAL(std::string("Service unavailable."), result.json()["message"].asString());
}

}  // namespace

class BusyDatabaseTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BusyDatabaseTest);
  CPPUNIT_TEST(testWriteBlockedByAnotherWriterIs503);
  CPPUNIT_TEST(testWriteBlockedByATableLockIs503);
  CPPUNIT_TEST(testWriteBlockedByARowLockIs503);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testWriteBlockedByAnotherWriterIs503() {
    // SQLite: there a lock wait ends after database.sqlite_busy_timeout_ms.
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
      assertBusy(login(client, account.email, account.password));
      // Reads do not wait for writers.
      E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    }
    CPPUNIT_ASSERT_EQUAL(tokensBefore, tokens());
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }

  // PostgreSQL: a table locked against writes from another connection. A
  // login, which writes its token, answers 503 after the lock timeout
  // instead of waiting as long as the lock is held.
  void testWriteBlockedByATableLockIs503() {
    if (!rapport::test::onPostgres()) return;
    const std::string database = rapport::test::freshDatabaseUrl("busy_table");
    ServerProcess server(
        probeSettings({{"database.url", database}, {"database.lock_timeout_ms", kLockTimeoutMs}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "busy-table");
    const auto tokens = [&] {
      return queryDatabase(database, "SELECT COUNT(*) FROM tokens").front().front();
    };
    const std::string tokensBefore = tokens();
    {
      // EXCLUSIVE: plain reads go on, every write of the table waits.
      PostgresLock lock(database, "LOCK TABLE tokens IN EXCLUSIVE MODE");
      const auto [refused, took] = answerBehind(
          lock, database, server.port(),
          [&](HttpClient& other) { return login(other, account.email, account.password); });
      assertBusy(refused);
      CPPUNIT_ASSERT_MESSAGE("the answer took longer than the lock timeout allows",
                             took < kAnswerWithin);
      // Reads do not wait for the lock.
      E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    }
    CPPUNIT_ASSERT_EQUAL(tokensBefore, tokens());
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }

  // PostgreSQL: one row locked from another connection (SELECT ... FOR
  // UPDATE, as a long transaction changing it would). The request that
  // changes that row answers 503; its change was rolled back whole.
  void testWriteBlockedByARowLockIs503() {
    if (!rapport::test::onPostgres()) return;
    const std::string database = rapport::test::freshDatabaseUrl("busy_row");
    ServerProcess server(
        probeSettings({{"database.url", database}, {"database.lock_timeout_ms", kLockTimeoutMs}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "busy-row");
    const rapport::Json rename = rapport::Json::object({{"name", "Renamed While Locked"}});
    {
      PostgresLock lock(
          database, "SELECT id FROM users WHERE id = " + sqlQuote(account.userId) + " FOR UPDATE");
      const auto [refused, took] =
          answerBehind(lock, database, server.port(), [&](HttpClient& other) {
            return other.patch("/v1/user/profile", rename, bearer(account.token));
          });
      assertBusy(refused);
      CPPUNIT_ASSERT_MESSAGE("the answer took longer than the lock timeout allows",
                             took < kAnswerWithin);
      // The row can still be read.
      const rapport::Json profile =
          E2E_ASSERT_DATA(200, client.get("/v1/user/profile", bearer(account.token)));
      CPPUNIT_ASSERT_EQUAL(account.name, profile["name"].asString());
    }
    CPPUNIT_ASSERT_EQUAL(
        account.name,
        queryDatabase(database, "SELECT name FROM users WHERE id = " + sqlQuote(account.userId))
            .front()
            .front());
    const rapport::Json renamed =
        E2E_ASSERT_DATA(200, client.patch("/v1/user/profile", rename, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Renamed While Locked"), renamed["name"].asString());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BusyDatabaseTest);
