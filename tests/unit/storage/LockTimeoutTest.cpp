// PostgreSQL sessions give up a lock wait after StorageOptions::lockTimeoutMs
// (database.lock_timeout_ms): the statement fails with SQLSTATE 55P03, which
// is DbError::Kind::Busy (the request answers 503), the transaction runs once
// (it is no deadlock worth running again) and the session stays usable.
// Migrations wait without limit. SQLite's counterpart is the busy timeout
// (PoolTest::sqliteLockWaitTimesOutAsBusy).
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <functional>
#include <latch>
#include <string>
#include <thread>

#include "StorageTestSupport.h"

using rapport::DbError;
using rapport::Tx;
using namespace rapport::test::storage;
using namespace std::chrono_literals;

namespace {

constexpr int kLockTimeoutMs = 200;

// Holds `sql` (a lock) in an open transaction on its own thread until released.
class LockHolder {
 public:
  LockHolder(rapport::host::SqlDatabase& db, std::string sql) {
    thread_ = std::thread([this, &db, sql = std::move(sql)] {
      db.transaction("", [&](Tx& tx) {
        pid_ = tx.query("SELECT pg_backend_pid() AS pid").front().i64("pid");
        tx.query(sql);
        holding_.count_down();
        release_.wait();
      });
    });
    holding_.wait();
  }
  ~LockHolder() {
    release();
    thread_.join();
  }
  LockHolder(const LockHolder&) = delete;
  LockHolder& operator=(const LockHolder&) = delete;
  void release() {
    if (!released_) {
      released_ = true;
      release_.count_down();
    }
  }
  std::int64_t pid() const { return pid_; }

 private:
  std::int64_t pid_ = 0;
  bool released_ = false;
  std::latch holding_{1};
  std::latch release_{1};
  std::thread thread_;
};

// Polls `condition` every 10 ms until it holds or `limit` passes.
bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
}

}  // namespace

class LockTimeoutTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(LockTimeoutTest);
  CPPUNIT_TEST(sessionsCarryTheLockTimeout);
  CPPUNIT_TEST(lockWaitTimesOutAsBusyAndRunsOnce);
  CPPUNIT_TEST(migrationsWaitWithoutLimit);
  CPPUNIT_TEST(negativeTimeoutIsRefused);
  CPPUNIT_TEST_SUITE_END();

  static rapport::host::StorageOptions options() {
    auto options = freshOptions();
    options.lockTimeoutMs = kLockTimeoutMs;
    return options;
  }

 public:
  void sessionsCarryTheLockTimeout() {
    if (!onPostgres()) return;
    auto db = openDatabase(options());
    CPPUNIT_ASSERT_EQUAL(std::string("200ms"),
                         db->query("SHOW lock_timeout").front().at(0).asString());
    auto defaults = openDatabase();
    CPPUNIT_ASSERT_EQUAL(std::string("5s"),
                         defaults->query("SHOW lock_timeout").front().at(0).asString());
  }

  void lockWaitTimesOutAsBusyAndRunsOnce() {
    if (!onPostgres()) return;
    auto db = openDatabase(options());
    db->exec("CREATE TABLE locked (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)");
    db->exec("INSERT INTO locked (id, n) VALUES (1, 0)");
    int runs = 0;
    {
      LockHolder holder(*db, "SELECT n FROM locked WHERE id = 1 FOR UPDATE");
      const auto started = std::chrono::steady_clock::now();
      try {
        db->transaction("", [&](Tx& tx) {
          ++runs;
          tx.exec("UPDATE locked SET n = n + 1 WHERE id = 1");
        });
        CPPUNIT_FAIL("expected the lock wait to time out");
      } catch (const DbError& e) {
        CPPUNIT_ASSERT_MESSAGE(e.what(), e.kind() == DbError::Kind::Busy);
        CPPUNIT_ASSERT_MESSAGE(e.what(), std::string(e.what()).find("55P03") != std::string::npos);
      }
      const auto waited = std::chrono::steady_clock::now() - started;
      CPPUNIT_ASSERT(waited >= std::chrono::milliseconds(kLockTimeoutMs));
      CPPUNIT_ASSERT_EQUAL(1, runs);  // a lock timeout is not run again like a deadlock
    }
    // The sessions are fine afterwards, and nothing was written.
    db->transaction("", [](Tx& tx) { tx.exec("UPDATE locked SET n = n + 1 WHERE id = 1"); });
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1},
                         db->query("SELECT n FROM locked WHERE id = 1").front().i64("n"));
  }

  void migrationsWaitWithoutLimit() {
    if (!onPostgres()) return;
    auto opts = options();
    opts.poolSize = 2;  // the holder's session and the migrating one
    auto db = openDatabase(opts);
    auto admin = openDatabase(opts);
    db->exec("CREATE TABLE migrated (id BIGINT PRIMARY KEY)");
    std::string failure = "did not run";
    bool waitedLong = false;
    {
      LockHolder holder(*db, "LOCK TABLE migrated IN ACCESS EXCLUSIVE MODE");
      std::thread migrating([&] {
        try {
          db->withMigrationLock([&](rapport::Queryable& session) {
            session.exec("ALTER TABLE migrated ADD COLUMN name TEXT");
          });
          failure.clear();
        } catch (const std::exception& e) {
          failure = e.what();
        }
      });
      // The ALTER has waited for the holder's lock three times the timeout.
      waitedLong = waitUntil(
          [&] {
            return !admin
                        ->query(
                            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            "AND ? = ANY(pg_blocking_pids(pid)) "
                            "AND clock_timestamp() - query_start > interval '600 ms'",
                            {holder.pid()})
                        .empty();
          },
          30s);
      holder.release();
      migrating.join();
    }
    CPPUNIT_ASSERT_MESSAGE("the migration never waited for the lock", waitedLong);
    CPPUNIT_ASSERT_EQUAL(std::string(), failure);
    CPPUNIT_ASSERT(db->query("SELECT name FROM migrated").empty());  // the column exists
    // Both sessions, the migrating one included, are back to the timeout:
    // each of two transactions open at once holds its own session.
    std::latch both(2);
    std::string seen[2];
    auto check = [&](int i) {
      db->transaction("", [&](Tx& tx) {
        seen[i] = tx.query("SHOW lock_timeout").front().at(0).asString();
        both.arrive_and_wait();
      });
    };
    std::thread other(check, 1);
    check(0);
    other.join();
    CPPUNIT_ASSERT_EQUAL(std::string("200ms"), seen[0]);
    CPPUNIT_ASSERT_EQUAL(std::string("200ms"), seen[1]);
  }

  void negativeTimeoutIsRefused() {
    auto opts = freshOptions();
    opts.lockTimeoutMs = -1;
    CPPUNIT_ASSERT_THROW(openDatabase(opts), std::runtime_error);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(LockTimeoutTest);
