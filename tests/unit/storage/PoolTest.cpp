// The session pool: waiting and timing out, concurrent writers, sessions
// the server dropped (PostgreSQL).
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <thread>
#include <vector>

#include "StorageTestSupport.h"

using rapport::DbError;
using rapport::Tx;
using namespace rapport::test::storage;
using namespace std::chrono_literals;

namespace {

// Holds the only session of a pool in an open transaction until released.
class SessionHolder {
 public:
  explicit SessionHolder(rapport::host::SqlDatabase& db) {
    thread_ = std::thread([this, &db] {
      db.transaction("", [this](Tx&) {
        holding_.count_down();
        release_.wait();
      });
    });
    holding_.wait();
  }
  ~SessionHolder() {
    release();
    thread_.join();
  }
  void release() {
    if (!released_.exchange(true)) release_.count_down();
  }

 private:
  std::latch holding_{1};
  std::latch release_{1};
  std::atomic<bool> released_{false};
  std::thread thread_;
};

std::int64_t backendPid(rapport::Database& db) {
  return db.query("SELECT pg_backend_pid() AS pid").front().i64("pid");
}

// Terminates a backend from another session and waits until it is gone.
void terminate(rapport::Database& admin, std::int64_t pid) {
  CPPUNIT_ASSERT(
      admin.query("SELECT pg_terminate_backend(?, 10000) AS done", {pid}).front().flag("done"));
}

}  // namespace

class PoolTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PoolTest);
  CPPUNIT_TEST(exhaustedPoolTimesOutAsBusy);
  CPPUNIT_TEST(waiterGetsTheReturnedSession);
  CPPUNIT_TEST(concurrentReadThenWriteTransactions);
  CPPUNIT_TEST(sqliteLockWaitTimesOutAsBusy);
  CPPUNIT_TEST(openTransactionIsRolledBackBeforeReuse);
  CPPUNIT_TEST(pingAnswers);
  CPPUNIT_TEST(deadIdleSessionIsReplaced);
  CPPUNIT_TEST(deadSessionAtBeginIsRetried);
  CPPUNIT_TEST(connectionLostMidTransactionIsNotRetried);
  CPPUNIT_TEST(refusalsNameTheirConfigurationKeys);
  CPPUNIT_TEST_SUITE_END();

  static void assertRefused(const rapport::host::StorageOptions& options,
                            const std::string& message) {
    try {
      rapport::host::SqlDatabase::open(options);
      CPPUNIT_FAIL("expected a refusal: " + message);
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(message, std::string(e.what()));
    }
  }

  static rapport::host::StorageOptions singleSession(int acquireTimeoutMs) {
    auto options = freshOptions();
    options.poolSize = 1;
    options.acquireTimeoutMs = acquireTimeoutMs;
    return options;
  }

 public:
  void exhaustedPoolTimesOutAsBusy() {
    auto db = openDatabase(singleSession(150));
    SessionHolder holder(*db);
    const auto started = std::chrono::steady_clock::now();
    try {
      db->query("SELECT 1");
      CPPUNIT_FAIL("expected the pool to be exhausted");
    } catch (const DbError& e) {
      CPPUNIT_ASSERT(e.kind() == DbError::Kind::Busy);
      CPPUNIT_ASSERT_EQUAL(std::string("database pool exhausted"), std::string(e.what()));
    }
    CPPUNIT_ASSERT(std::chrono::steady_clock::now() - started >= 150ms);
  }

  // An operator fixes the key the message names: it must be the real one.
  void refusalsNameTheirConfigurationKeys() {
    auto options = freshOptions();
    options.poolSize = 0;
    assertRefused(options, "database.pool_size must be at least 1");
    options = freshOptions();
    options.lockTimeoutMs = -1;
    assertRefused(options,
                  "database.acquire_timeout_ms, database.sqlite_busy_timeout_ms and "
                  "database.lock_timeout_ms must not be negative");
  }

  void waiterGetsTheReturnedSession() {
    auto db = openDatabase(singleSession(30000));
    SessionHolder holder(*db);
    auto waiter = std::async(std::launch::async,
                             [&] { return db->query("SELECT 7 AS seven").front().i64("seven"); });
    // The borrower is queued before the session comes back.
    CPPUNIT_ASSERT(poolOf(*db).awaitWaiting(1, 30s));
    holder.release();
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, waiter.get());
  }

  // Two or more writers reading then writing the same row: on SQLite every
  // transaction queues on BEGIN IMMEDIATE ("database is locked" never
  // surfaces); on PostgreSQL the row lock serialises them.
  void concurrentReadThenWriteTransactions() {
    auto db = openDatabase();
    db->exec("CREATE TABLE counter (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)");
    db->exec("INSERT INTO counter (id, n) VALUES (1, 0)");
    const std::string read = bySql("SELECT n FROM counter WHERE id = 1",
                                   "SELECT n FROM counter WHERE id = 1 FOR UPDATE");
    constexpr int kThreads = 4, kRounds = 50;
    std::atomic<int> failures{0};
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        start.arrive_and_wait();
        for (int i = 0; i < kRounds; ++i) {
          try {
            db->transaction("", [&](Tx& tx) {
              const std::int64_t n = tx.query(read).front().i64("n");
              tx.exec("UPDATE counter SET n = ? WHERE id = 1", {n + 1});
            });
          } catch (const std::exception&) {
            ++failures;
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(0, failures.load());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kRounds},
                         db->query("SELECT n FROM counter").front().i64("n"));
  }

  // Another process holds the write lock longer than the busy timeout.
  void sqliteLockWaitTimesOutAsBusy() {
    if (onPostgres()) return;
    auto options = singleSession(5000);
    auto holderDb = openDatabase(options);
    options.sqliteBusyTimeoutMs = 50;
    auto impatient = openDatabase(options);
    SessionHolder holder(*holderDb);
    try {
      impatient->transaction("", [](Tx&) { CPPUNIT_FAIL("must not start"); });
      CPPUNIT_FAIL("expected the lock wait to time out");
    } catch (const DbError& e) {
      CPPUNIT_ASSERT_MESSAGE(e.what(), e.kind() == DbError::Kind::Busy);
    }
    holder.release();
    impatient->transaction("", [](Tx& tx) { tx.query("SELECT 1"); });
  }

  // withMigrationLock hands out a raw session: a transaction left open there
  // is rolled back before the session serves anyone else.
  void openTransactionIsRolledBackBeforeReuse() {
    auto db = openDatabase(singleSession(5000));
    db->exec("CREATE TABLE t (x BIGINT)");
    db->withMigrationLock([](rapport::Queryable& q) {
      q.exec(q.dialect() == rapport::Dialect::SQLite ? "BEGIN IMMEDIATE" : "BEGIN");
      q.exec("INSERT INTO t (x) VALUES (1)");
    });
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, db->query("SELECT x FROM t").size());
    db->transaction("", [](Tx& tx) { tx.exec("INSERT INTO t (x) VALUES (2)"); });
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, db->query("SELECT x FROM t").size());
  }

  void pingAnswers() {
    auto db = openDatabase();
    CPPUNIT_ASSERT(db->ping());
  }

  void deadIdleSessionIsReplaced() {
    if (!onPostgres()) return;
    const auto options = singleSession(5000);
    auto db = openDatabase(options);
    auto admin = openDatabase(options);
    const std::int64_t before = backendPid(*db);
    terminate(*admin, before);
    const std::int64_t after = backendPid(*db);  // retried once on a fresh session
    CPPUNIT_ASSERT(after != before);
    CPPUNIT_ASSERT(db->ping());
  }

  void deadSessionAtBeginIsRetried() {
    if (!onPostgres()) return;
    const auto options = singleSession(5000);
    auto db = openDatabase(options);
    auto admin = openDatabase(options);
    db->exec("CREATE TABLE t (x BIGINT)");
    terminate(*admin, backendPid(*db));
    int calls = 0;
    db->transaction("", [&](Tx& tx) {
      ++calls;
      tx.exec("INSERT INTO t (x) VALUES (1)");
    });
    CPPUNIT_ASSERT_EQUAL(1, calls);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, db->query("SELECT x FROM t").size());
  }

  // Once a statement ran, a lost connection is the caller's error: a retry
  // could apply the work twice.
  void connectionLostMidTransactionIsNotRetried() {
    if (!onPostgres()) return;
    const auto options = singleSession(5000);
    auto db = openDatabase(options);
    auto admin = openDatabase(options);
    db->exec("CREATE TABLE t (x BIGINT)");
    int calls = 0;
    try {
      db->transaction("", [&](Tx& tx) {
        ++calls;
        const auto pid = tx.query("SELECT pg_backend_pid() AS pid").front().i64("pid");
        tx.exec("INSERT INTO t (x) VALUES (1)");
        terminate(*admin, pid);
        tx.exec("INSERT INTO t (x) VALUES (2)");
      });
      CPPUNIT_FAIL("expected the lost connection to surface");
    } catch (const DbError& e) {
      CPPUNIT_ASSERT(e.kind() == DbError::Kind::ConnectionLost);
    }
    CPPUNIT_ASSERT_EQUAL(1, calls);
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, db->query("SELECT x FROM t").size());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolTest);
