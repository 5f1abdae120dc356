// The prepared statements of a pooled session: compiled once and reused,
// fresh on a session that replaced a dead one, not lost or poisoned by a
// failure, and up to date after a schema change. Each engine shows its own
// statements: SQLite's sqlite_stmt table (the connection's statements, with
// how often each ran) and PostgreSQL's pg_prepared_statements (the session's,
// with how many plans it made: one per execution).
#include <cppunit/extensions/HelperMacros.h>

#include <cstdint>

#include "StorageTestSupport.h"
#include "storage/StatementCache.h"

using rapport::DbError;
using rapport::Params;
using rapport::Result;
using namespace rapport::test::storage;

namespace {

// The statement the tests reuse, as each engine stores its text.
const std::string kLookup = "SELECT s FROM vals WHERE id = ?";
const std::string kLookupOnServer = "SELECT s FROM vals WHERE id = $1";

struct Prepared {
  std::size_t copies = 0;  // statements with that text on the session
  std::int64_t runs = 0;   // executions, over all the copies
};

// What the session knows of the statement `sql` (the text the application
// sends). The query asking is a statement of its own, on the same session
// (the pools here hold one).
Prepared preparedOnSession(rapport::Database& db, const std::string& sql) {
  const Result rows =
      onPostgres() ? db.query(
                         "SELECT generic_plans + custom_plans AS runs FROM pg_prepared_statements "
                         "WHERE statement = ?",
                         {sql == kLookup ? kLookupOnServer : sql})
                   : db.query("SELECT run AS runs FROM sqlite_stmt WHERE sql = ?", {sql});
  Prepared out;
  out.copies = rows.size();
  for (const auto& row : rows) out.runs += row.i64("runs");
  return out;
}

std::int64_t backendPid(rapport::Database& db) {
  return db.query("SELECT pg_backend_pid() AS pid").front().i64("pid");
}

}  // namespace

class StatementCacheTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StatementCacheTest);
  CPPUNIT_TEST(statementIsPreparedOnceAndReused);
  CPPUNIT_TEST(newSessionAfterALostOnePreparesAgain);
  CPPUNIT_TEST(failedExecutionLeavesTheSessionUsable);
  CPPUNIT_TEST(failedPrepareIsNotCached);
  CPPUNIT_TEST(sqliteStatementFollowsASchemaChange);
  CPPUNIT_TEST(sqliteRefusesSeveralStatementsInOneText);
  CPPUNIT_TEST(cacheEvictsTheLeastRecentlyUsed);
  CPPUNIT_TEST_SUITE_END();

  std::unique_ptr<rapport::host::SqlDatabase> db_;

  static rapport::host::StorageOptions singleSession() {
    auto options = freshOptions();
    options.poolSize = 1;
    return options;
  }

  void insertRows(int count) {
    for (int id = 1; id <= count; ++id) {
      db_->exec("INSERT INTO vals (id, s) VALUES (?, ?)", {id, "row " + std::to_string(id)});
    }
  }

 public:
  void setUp() override {
    db_ = openDatabase(singleSession());
    db_->exec("CREATE TABLE vals (id BIGINT PRIMARY KEY, s TEXT)");
  }
  void tearDown() override { db_.reset(); }

  void statementIsPreparedOnceAndReused() {
    insertRows(3);
    for (int round = 0; round < 50; ++round) {
      const std::int64_t id = 1 + round % 3;
      const Result result = db_->query(kLookup, {id});
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, result.size());
      CPPUNIT_ASSERT_EQUAL("row " + std::to_string(id), result.front().str("s"));
    }
    const Prepared prepared = preparedOnSession(*db_, kLookup);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, prepared.copies);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{50}, prepared.runs);
  }

  // PostgreSQL: a session the server dropped is replaced, and the statement
  // is prepared again on the new one (a name prepared on the old session
  // would not exist there).
  void newSessionAfterALostOnePreparesAgain() {
    if (!onPostgres()) return;
    insertRows(1);
    for (int round = 0; round < 3; ++round) db_->query(kLookup, {1});
    auto admin = openDatabase(singleSession());
    const std::int64_t before = backendPid(*db_);
    CPPUNIT_ASSERT(admin->query("SELECT pg_terminate_backend(?, 10000) AS done", {before})
                       .front()
                       .flag("done"));
    // Retried once on a fresh session.
    CPPUNIT_ASSERT_EQUAL(std::string("row 1"), db_->query(kLookup, {1}).front().str("s"));
    CPPUNIT_ASSERT(backendPid(*db_) != before);
    const Prepared prepared = preparedOnSession(*db_, kLookup);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, prepared.copies);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, prepared.runs);
  }

  // A statement that fails (here: a duplicate key) neither breaks the
  // session nor the statements around it; on SQLite it stays prepared and
  // runs again (no second copy).
  void failedExecutionLeavesTheSessionUsable() {
    const std::string insert = "INSERT INTO vals (id, s) VALUES (?, ?)";
    db_->exec(insert, {1, "one"});
    db_->query(kLookup, {1});
    CPPUNIT_ASSERT(kindOf([&] {
                     db_->exec(insert, {1, "again"});
                   }) == DbError::Kind::UniqueViolation);
    db_->exec(insert, {2, "two"});
    CPPUNIT_ASSERT_EQUAL(std::string("two"), db_->query(kLookup, {2}).front().str("s"));
    CPPUNIT_ASSERT_EQUAL(std::string("one"), db_->query(kLookup, {1}).front().str("s"));
    if (!onPostgres()) {
      const Prepared prepared = preparedOnSession(*db_, insert);
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, prepared.copies);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, prepared.runs);
    }
    // Inside a transaction too: the failure rolls it back, the session serves on.
    CPPUNIT_ASSERT(kindOf([&] {
                     db_->transaction("", [&](rapport::Tx& tx) {
                       tx.exec(insert, {3, "three"});
                       tx.exec(insert, {1, "duplicate"});
                     });
                   }) == DbError::Kind::UniqueViolation);
    CPPUNIT_ASSERT(db_->query(kLookup, {3}).empty());
    CPPUNIT_ASSERT_EQUAL(std::string("one"), db_->query(kLookup, {1}).front().str("s"));
  }

  void failedPrepareIsNotCached() {
    for (int round = 0; round < 2; ++round) {
      CPPUNIT_ASSERT(kindOf([&] { db_->query("SELECT s FROM missing WHERE id = ?", {1}); }) ==
                     DbError::Kind::Other);
    }
    db_->exec("CREATE TABLE missing (id BIGINT PRIMARY KEY, s TEXT)");
    db_->exec("INSERT INTO missing (id, s) VALUES (?, ?)", {1, "found"});
    CPPUNIT_ASSERT_EQUAL(std::string("found"),
                         db_->query("SELECT s FROM missing WHERE id = ?", {1}).front().str("s"));
  }

  // SQLite recompiles a statement by itself after a schema change; the
  // columns it reports follow.
  void sqliteStatementFollowsASchemaChange() {
    if (onPostgres()) return;
    insertRows(1);
    const std::string all = "SELECT * FROM vals WHERE id = ?";
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, db_->query(all, {1}).front().size());
    db_->exec("ALTER TABLE vals ADD COLUMN extra TEXT DEFAULT 'x'");
    const Result after = db_->query(all, {1});
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, after.front().size());
    CPPUNIT_ASSERT_EQUAL(std::string("x"), after.front().str("extra"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, preparedOnSession(*db_, all).copies);
  }

  // The second statement would otherwise be ignored without a word.
  void sqliteRefusesSeveralStatementsInOneText() {
    if (onPostgres()) return;
    CPPUNIT_ASSERT(kindOf([&] {
                     db_->exec(
                         "INSERT INTO vals (id) VALUES (1); INSERT INTO vals (id) VALUES (2)");
                   }) == DbError::Kind::Other);
    CPPUNIT_ASSERT(db_->query(kLookup, {1}).empty());
    // Trailing separators and comments are not statements.
    db_->exec("INSERT INTO vals (id, s) VALUES (1, 'one'); -- done\n ;");
    CPPUNIT_ASSERT_EQUAL(std::string("one"), db_->query(kLookup, {1}).front().str("s"));
  }

  void cacheEvictsTheLeastRecentlyUsed() {
    rapport::host::StatementCache cache(2);
    struct Fake final : rapport::host::PreparedStatement {
      explicit Fake(int n) : n(n) {}
      Result execute(const Params&) override { return {}; }
      bool reusableAfterFailure() const override { return true; }
      int n;
    };
    CPPUNIT_ASSERT(!cache.insert("a", std::make_unique<Fake>(1)));
    CPPUNIT_ASSERT(!cache.insert("b", std::make_unique<Fake>(2)));
    CPPUNIT_ASSERT(cache.find("a") != nullptr);  // "b" is now the least recent
    auto evicted = cache.insert("c", std::make_unique<Fake>(3));
    CPPUNIT_ASSERT(evicted);
    CPPUNIT_ASSERT_EQUAL(2, dynamic_cast<Fake&>(*evicted).n);
    CPPUNIT_ASSERT(cache.find("b") == nullptr);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, cache.size());
    auto removed = cache.remove("a");
    CPPUNIT_ASSERT(removed);
    CPPUNIT_ASSERT_EQUAL(1, dynamic_cast<Fake&>(*removed).n);
    CPPUNIT_ASSERT(cache.find("a") == nullptr);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StatementCacheTest);
