// Database::transaction: commit, rollback with the original exception,
// after-commit callbacks, events through the emit hook.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "StorageTestSupport.h"
#include "rapport/error.h"

using rapport::DbError;
using rapport::Json;
using rapport::Tx;
using namespace rapport::test::storage;

namespace {

struct CustomFailure : std::runtime_error {
  int code;
  explicit CustomFailure(int c) : std::runtime_error("custom"), code(c) {}
};

}  // namespace

class TransactionTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TransactionTest);
  CPPUNIT_TEST(commitsWork);
  CPPUNIT_TEST(writesMatchingNothingCommit);
  CPPUNIT_TEST(deadlockedTransactionRunsAgain);
  CPPUNIT_TEST(rollsBackAndRethrowsTheSameException);
  CPPUNIT_TEST(rollsBackOnDbErrors);
  CPPUNIT_TEST(afterCommitRunsOnlyAfterCommitInOrder);
  CPPUNIT_TEST(afterCommitFailuresAreSwallowed);
  CPPUNIT_TEST(emitCallsTheHookWithTheTransaction);
  CPPUNIT_TEST(emitWithoutHookIsALogicError);
  CPPUNIT_TEST(swallowedStatementFailure);
  CPPUNIT_TEST(sessionIsCleanAfterAFailedTransaction);
  CPPUNIT_TEST_SUITE_END();

  std::unique_ptr<rapport::host::SqlDatabase> db_;

  std::int64_t count() { return db_->query("SELECT COUNT(*) AS n FROM items").front().i64("n"); }

 public:
  void setUp() override {
    auto options = freshOptions();
    options.poolSize = 1;  // every call shares the one session: leftovers would show
    db_ = openDatabase(options);
    db_->exec("CREATE TABLE items (id BIGINT PRIMARY KEY, name TEXT NOT NULL)");
    db_->exec(
        "CREATE TABLE events (company_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL)");
  }
  void tearDown() override { db_.reset(); }

  void commitsWork() {
    db_->transaction("comp_1", [](Tx& tx) {
      CPPUNIT_ASSERT_EQUAL(std::string("comp_1"), tx.companyId());
      CPPUNIT_ASSERT_EQUAL(std::int64_t{1},
                           tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"}));
      tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {2, "b"});
      // The transaction reads its own writes.
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, tx.query("SELECT id FROM items").size());
    });
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, count());
  }

  // DELETE and UPDATE that match no row leave no statement in progress.
  void writesMatchingNothingCommit() {
    db_->transaction("comp_1", [](Tx& tx) {
      CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tx.exec("DELETE FROM items WHERE id = ?", {404}));
      CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                           tx.exec("UPDATE items SET name = ? WHERE id = ?", {"x", 404}));
      tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"});
      CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tx.exec("DELETE FROM items WHERE id = ?", {404}));
    });
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, count());
  }

  // Two transactions that lock two rows in opposite orders: PostgreSQL
  // aborts one to break the deadlock, and it runs again and commits.
  void deadlockedTransactionRunsAgain() {
    if (!onPostgres()) return;  // SQLite has one writer: no deadlock to break
    auto options = freshOptions();
    options.poolSize = 4;
    auto db = openDatabase(options);
    db->exec("CREATE TABLE pairs (id BIGINT PRIMARY KEY, marks TEXT NOT NULL)");
    db->exec("INSERT INTO pairs (id, marks) VALUES (1, ''), (2, '')");
    std::atomic<int> runs{0};
    std::promise<void> firstLocked[2];
    std::shared_future<void> locked[2] = {firstLocked[0].get_future().share(),
                                          firstLocked[1].get_future().share()};
    std::string failures[2];
    const auto worker = [&](int self, std::int64_t first, std::int64_t second, const char* mark) {
      bool waited = false;
      try {
        db->transaction("", [&](Tx& tx) {
          ++runs;
          tx.exec("UPDATE pairs SET marks = marks || ? WHERE id = ?", {mark, first});
          if (!waited) {  // only the first run meets the other half-way
            waited = true;
            firstLocked[self].set_value();
            locked[1 - self].wait();
          }
          tx.exec("UPDATE pairs SET marks = marks || ? WHERE id = ?", {mark, second});
        });
      } catch (const std::exception& e) {
        failures[self] = e.what();
      }
    };
    std::thread a(worker, 0, 1, 2, "a");
    std::thread b(worker, 1, 2, 1, "b");
    a.join();
    b.join();
    CPPUNIT_ASSERT_EQUAL_MESSAGE(failures[0], std::string(), failures[0]);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(failures[1], std::string(), failures[1]);
    // One of the two ran twice; rarely both: two backends can each detect
    // the cycle before either abort lands (seen once in CI under load).
    CPPUNIT_ASSERT_MESSAGE(std::to_string(runs.load()), runs.load() == 3 || runs.load() == 4);
    for (const rapport::Row& row : db->query("SELECT marks FROM pairs")) {
      std::string marks = row.str("marks");
      std::sort(marks.begin(), marks.end());
      CPPUNIT_ASSERT_EQUAL(std::string("ab"), marks);  // each committed once
    }
  }

  void rollsBackAndRethrowsTheSameException() {
    try {
      db_->transaction("", [](Tx& tx) {
        tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"});
        throw rapport::Error::notFound("No such thing.");
      });
      CPPUNIT_FAIL("expected rapport::Error");
    } catch (const rapport::Error& e) {
      CPPUNIT_ASSERT_EQUAL(404, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("No such thing."), std::string(e.what()));
    }
    try {
      db_->transaction("", [](Tx& tx) {
        tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {2, "b"});
        throw CustomFailure(7);
      });
      CPPUNIT_FAIL("expected CustomFailure");
    } catch (const CustomFailure& e) {
      CPPUNIT_ASSERT_EQUAL(7, e.code);
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, count());
  }

  void rollsBackOnDbErrors() {
    db_->exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"});
    try {
      db_->transaction("", [](Tx& tx) {
        tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {2, "b"});
        tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "again"});
      });
      CPPUNIT_FAIL("expected a DbError");
    } catch (const DbError& e) {
      CPPUNIT_ASSERT(e.isUniqueViolation());
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, count());
  }

  void afterCommitRunsOnlyAfterCommitInOrder() {
    std::vector<std::string> calls;
    db_->transaction("", [&](Tx& tx) {
      tx.afterCommit([&] { calls.push_back("first"); });
      tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"});
      tx.afterCommit([&] { calls.push_back("second"); });
      CPPUNIT_ASSERT(calls.empty());
    });
    CPPUNIT_ASSERT((calls == std::vector<std::string>{"first", "second"}));
    calls.clear();
    CPPUNIT_ASSERT_THROW(db_->transaction("",
                                          [&](Tx& tx) {
                                            tx.afterCommit([&] { calls.push_back("never"); });
                                            throw std::runtime_error("abort");
                                          }),
                         std::runtime_error);
    CPPUNIT_ASSERT(calls.empty());
  }

  void afterCommitFailuresAreSwallowed() {
    bool later = false;
    db_->transaction("", [&](Tx& tx) {
      tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"});
      tx.afterCommit([] { throw std::runtime_error("cache server down"); });
      tx.afterCommit([&] { later = true; });
    });
    CPPUNIT_ASSERT(later);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, count());
    // A callback may use the database: the session went back before it ran.
    std::int64_t seen = -1;
    db_->transaction("", [&](Tx& tx) { tx.afterCommit([&] { seen = count(); }); });
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, seen);
  }

  void emitCallsTheHookWithTheTransaction() {
    db_->setEmitHook([](Tx& tx, const std::string& type, const Json& data) {
      tx.exec("INSERT INTO events (company_id, type, data) VALUES (?, ?, ?)",
              {tx.companyId(), type, data.dump()});
    });
    db_->transaction("comp_9", [](Tx& tx) {
      tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"});
      tx.emit("item.created", Json::object({{"id", 1}}));
    });
    CPPUNIT_ASSERT_THROW(db_->transaction("comp_9",
                                          [](Tx& tx) {
                                            tx.emit("item.deleted", Json::object({{"id", 1}}));
                                            throw std::runtime_error("abort");
                                          }),
                         std::runtime_error);
    const auto events = db_->query("SELECT company_id, type, data FROM events");
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, events.size());
    CPPUNIT_ASSERT_EQUAL(std::string("comp_9"), events.front().str("company_id"));
    CPPUNIT_ASSERT_EQUAL(std::string("item.created"), events.front().str("type"));
    CPPUNIT_ASSERT_EQUAL(std::string("{\"id\":1}"), events.front().str("data"));
  }

  void emitWithoutHookIsALogicError() {
    CPPUNIT_ASSERT_THROW(
        db_->transaction("", [](Tx& tx) { tx.emit("item.created", Json::object()); }),
        std::logic_error);
  }

  // A callback that catches a failed statement and carries on: SQLite undoes
  // only that statement and commits the rest; PostgreSQL has aborted the
  // whole transaction, so the commit reports the error and stores nothing.
  void swallowedStatementFailure() {
    db_->exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "a"});
    auto body = [](Tx& tx) {
      tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {2, "b"});
      try {
        tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {1, "dup"});
      } catch (const DbError&) {
      }
    };
    if (onPostgres()) {
      try {
        db_->transaction("", body);
        CPPUNIT_FAIL("expected the aborted transaction to be reported");
      } catch (const DbError& e) {
        CPPUNIT_ASSERT(e.isUniqueViolation());
      }
      CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, count());
    } else {
      db_->transaction("", body);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, count());
    }
  }

  // The pool has one session: whatever the failed transaction left behind
  // (an open or aborted transaction) would break these calls.
  void sessionIsCleanAfterAFailedTransaction() {
    for (int round = 0; round < 3; ++round) {
      CPPUNIT_ASSERT_THROW(db_->transaction("", [](Tx& tx) { tx.query("SELECT nope FROM items"); }),
                           DbError);
      db_->transaction("", [&](Tx& tx) {
        tx.exec("INSERT INTO items (id, name) VALUES (?, ?)", {round, "ok"});
      });
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, count());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TransactionTest);
