// GroupCommit: SQLite's writes run one at a time, and those that queue while
// a batch runs share its COMMIT, each in a savepoint of its own; nobody
// returns before the COMMIT that stored its work. The class is exercised on
// both engines (savepoints are the same SQL); SqlDatabase uses it on SQLite
// only.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "StorageTestSupport.h"
#include "log/RequestScope.h"
#include "rapport/db.h"
#include "storage/Connection.h"
#include "storage/GroupCommit.h"
#include "storage/SessionPool.h"

using rapport::DbError;
using rapport::host::Connection;
using rapport::host::GroupCommit;
using rapport::host::RequestScope;
using rapport::host::SessionPool;
using rapport::host::SqlDatabase;
using rapport::host::SqlDatabaseImpl;
using namespace std::chrono_literals;
using namespace rapport::test::storage;

namespace {

// A database with one table, and a GroupCommit of its own over its pool.
struct Bench {
  std::unique_ptr<SqlDatabase> db = openDatabase();
  std::unique_ptr<GroupCommit> group;
  std::atomic<int> returned = 0;  // writers of startQueued whose run() returned

  explicit Bench(std::size_t maxMembers = 64, std::chrono::milliseconds timeout = 10s,
                 GroupCommit::BeforeCommit beforeCommit = {}) {
    db->exec("CREATE TABLE batch_items (name VARCHAR(20) NOT NULL)");
    SessionPool& pool = poolOf(*db);
    group = std::make_unique<GroupCommit>(
        [&pool] {
          SessionPool::Lease lease = pool.acquire();
          lease->begin();
          return lease;
        },
        maxMembers, timeout, std::move(beforeCommit));
  }

  // Work that inserts `name`.
  static std::function<void(Connection&)> insert(const std::string& name) {
    return [name](Connection& c) {
      c.run("INSERT INTO batch_items (name) VALUES (?)", {rapport::Value(name)});
    };
  }

  // Names stored, as another session sees them.
  std::string stored();

  // Waits (bounded) until `count` writes queue behind the running batch.
  void awaitWaiting(std::size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (group->waiting() < count) {
      if (std::chrono::steady_clock::now() > deadline) CPPUNIT_FAIL("writers never queued");
      std::this_thread::sleep_for(1ms);
    }
  }

  // Starts `works.size()` writers; the first's work waits until all the
  // others queue, so they all join its batch. Returns their futures.
  std::vector<std::future<void>> startQueued(std::vector<std::function<void(Connection&)>> works) {
    auto firstIn = std::make_shared<std::promise<void>>();
    std::future<void> firstEntered = firstIn->get_future();
    std::vector<std::future<void>> runs;
    const std::size_t others = works.size() - 1;
    runs.push_back(std::async(std::launch::async, [this, firstIn, first = works.front(), others] {
      group->run([&](Connection& c) {
        firstIn->set_value();
        first(c);
        awaitWaiting(others);
      });
      ++returned;
    }));
    firstEntered.wait();
    for (std::size_t i = 1; i < works.size(); ++i) {
      runs.push_back(std::async(std::launch::async, [this, work = works[i]] {
        group->run(work);
        ++returned;
      }));
      // In order (the queue is first come, first served). The last one is
      // awaited by the first writer's work.
      if (i < others) awaitWaiting(i);
    }
    return runs;
  }
};

// Names stored in batch_items of `db`, as another session sees them.
std::string storedIn(SqlDatabase& db) {
  std::string names;
  for (const auto& row : db.query("SELECT name FROM batch_items ORDER BY name").rows) {
    names += row.str("name") + " ";
  }
  return names;
}

std::string Bench::stored() {
  return storedIn(*db);
}

// What a run threw: "" for nothing, else its message.
std::string outcome(std::future<void>& run) {
  try {
    run.get();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

class GroupCommitTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(GroupCommitTest);
  CPPUNIT_TEST(aLoneWriterCommitsAtOnce);
  CPPUNIT_TEST(queuedWritersShareOneCommit);
  CPPUNIT_TEST(nothingIsVisibleOrAnsweredBeforeTheCommit);
  CPPUNIT_TEST(aFailingMemberRollsBackOnlyItself);
  CPPUNIT_TEST(aTransactionTheEngineEndedFailsEveryMember);
  CPPUNIT_TEST(aFullBatchCommitsWhileOthersWait);
  CPPUNIT_TEST(sqliteWritesGoThroughTheBatches);
  CPPUNIT_TEST(aWriteInsideAWriteIsBusyOnSqlite);
  CPPUNIT_TEST(concurrentTransactionsAllCommit);
  CPPUNIT_TEST(jobsFirstThenArrivalOrder);
  CPPUNIT_TEST(aQueuedWriteGivesUpAfterTheTimeout);
  CPPUNIT_TEST(theMemberRunsUnderItsOwnRequestScope);
  CPPUNIT_TEST(theHookRunsOncePerBatchBeforeTheCommit);
  CPPUNIT_TEST(aFailingHookLosesTheBatch);
  CPPUNIT_TEST_SUITE_END();

 public:
  void aLoneWriterCommitsAtOnce() {
    Bench bench;
    bench.group->run(Bench::insert("a"));
    CPPUNIT_ASSERT_EQUAL(std::string("a "), bench.stored());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{1}, bench.group->stats().batches);
  }

  void queuedWritersShareOneCommit() {
    Bench bench;
    auto runs = bench.startQueued({Bench::insert("a"), Bench::insert("b"), Bench::insert("c"),
                                   Bench::insert("d"), Bench::insert("e")});
    for (auto& run : runs) CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(run));
    CPPUNIT_ASSERT_EQUAL(std::string("a b c d e "), bench.stored());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{1}, bench.group->stats().batches);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{5}, bench.group->stats().members);
  }

  void nothingIsVisibleOrAnsweredBeforeTheCommit() {
    Bench bench;
    std::string seenByOthers = "unset";
    int returnedMeanwhile = -1;
    auto runs = bench.startQueued({Bench::insert("a"), [&](Connection& c) {
                                     // "a" ran: it is in the batch, not committed,
                                     // and its writer has not returned.
                                     seenByOthers = bench.stored();
                                     returnedMeanwhile = bench.returned;
                                     c.run("INSERT INTO batch_items (name) VALUES ('b')", {});
                                   }});
    for (auto& run : runs) CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(run));
    CPPUNIT_ASSERT_EQUAL(std::string(""), seenByOthers);
    CPPUNIT_ASSERT_EQUAL(0, returnedMeanwhile);
    CPPUNIT_ASSERT_EQUAL(std::string("a b "), bench.stored());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{1}, bench.group->stats().batches);
  }

  void aFailingMemberRollsBackOnlyItself() {
    Bench bench;
    auto runs = bench.startQueued({Bench::insert("a"),
                                   [](Connection& c) {
                                     Bench::insert("b")(c);
                                     throw std::runtime_error("b changed its mind");
                                   },
                                   [](Connection& c) {
                                     // A failed statement (NULL into NOT NULL) that the work
                                     // lets through rolls back this member too.
                                     Bench::insert("c")(c);
                                     c.run("INSERT INTO batch_items (name) VALUES (NULL)", {});
                                   },
                                   Bench::insert("d")});
    CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(runs[0]));
    CPPUNIT_ASSERT_EQUAL(std::string("b changed its mind"), outcome(runs[1]));
    CPPUNIT_ASSERT(outcome(runs[2]) != "");
    CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(runs[3]));
    CPPUNIT_ASSERT_EQUAL(std::string("a d "), bench.stored());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{1}, bench.group->stats().batches);
  }

  void aTransactionTheEngineEndedFailsEveryMember() {
    Bench bench;
    // Work that ends the transaction stands in for SQLite's own rollback
    // after an I/O error or a full disk: the batch is lost, for everyone.
    auto runs = bench.startQueued({Bench::insert("a"), [](Connection& c) {
                                     Bench::insert("b")(c);
                                     c.run("ROLLBACK", {});
                                   }});
    const std::string lost = "the write transaction was rolled back by the database";
    CPPUNIT_ASSERT_EQUAL(lost, outcome(runs[0]));
    CPPUNIT_ASSERT_EQUAL(lost, outcome(runs[1]));
    CPPUNIT_ASSERT_EQUAL(std::string(""), bench.stored());
    bench.group->run(Bench::insert("c"));  // the next batch is a fresh one
    CPPUNIT_ASSERT_EQUAL(std::string("c "), bench.stored());
  }

  void aFullBatchCommitsWhileOthersWait() {
    Bench bench(2);
    auto runs = bench.startQueued(
        {Bench::insert("a"), Bench::insert("b"), Bench::insert("c"), Bench::insert("d")});
    for (auto& run : runs) CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(run));
    CPPUNIT_ASSERT_EQUAL(std::string("a b c d "), bench.stored());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{2}, bench.group->stats().batches);
  }

  void sqliteWritesGoThroughTheBatches() {
    auto db = openDatabase();
    auto& impl = dynamic_cast<SqlDatabaseImpl&>(*db);
    db->exec("CREATE TABLE batch_items (name VARCHAR(20) NOT NULL)");
    const auto before = impl.groupCommitStats().members;
    db->query("INSERT INTO batch_items (name) VALUES ('a') RETURNING name");
    bool committedWhenCalledBack = false;
    db->transaction("", [&](rapport::Tx& tx) {
      tx.exec("INSERT INTO batch_items (name) VALUES ('b')");
      tx.afterCommit([&] {
        committedWhenCalledBack =
            db->query("SELECT name FROM batch_items WHERE name = 'b'").rows.size() == 1;
      });
    });
    CPPUNIT_ASSERT(committedWhenCalledBack);
    const auto joined = impl.groupCommitStats().members - before;
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{onPostgres() ? 0u : 2u}, joined);
  }

  void aWriteInsideAWriteIsBusyOnSqlite() {
    auto db = openDatabase();
    db->exec("CREATE TABLE batch_items (name VARCHAR(20) NOT NULL)");
    auto writeInside = [&] {
      db->transaction("", [&](rapport::Tx& tx) {
        tx.exec("INSERT INTO batch_items (name) VALUES ('a')");
        db->exec("INSERT INTO batch_items (name) VALUES ('b')");
      });
    };
    if (onPostgres()) {
      writeInside();  // row locks: the autocommit write runs beside the transaction
      CPPUNIT_ASSERT_EQUAL(std::string("a b "), storedIn(*db));
      return;
    }
    // SQLite has one writer: the inner write could only wait for the batch
    // it is part of. It fails at once (a long timeout would hang the test).
    CPPUNIT_ASSERT(kindOf(writeInside) == DbError::Kind::Busy);
    CPPUNIT_ASSERT_EQUAL(std::string(""), storedIn(*db));
  }

  void concurrentTransactionsAllCommit() {
    auto db = openDatabase();
    db->exec("CREATE TABLE batch_counts (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
    db->exec("INSERT INTO batch_counts (id, n) VALUES (1, 0)");
    constexpr int kThreads = 8;
    constexpr int kEach = 25;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kEach; ++i) {
          db->transaction("", [](rapport::Tx& tx) {
            tx.exec("UPDATE batch_counts SET n = n + 1 WHERE id = 1");
          });
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kEach},
                         db->query("SELECT n FROM batch_counts WHERE id = 1").front().i64("n"));
  }

  // Request writes run in arrival order; a write outside any request (a
  // job) goes before the requests already waiting.
  void jobsFirstThenArrivalOrder() {
    Bench bench;
    std::vector<std::string> order;  // appended by the leader's thread only
    auto named = [&](const std::string& name) {
      return [&order, name](Connection& c) {
        order.push_back(name);
        Bench::insert(name)(c);
      };
    };
    auto inRequest = [&](const std::string& name) {
      return std::async(std::launch::async, [&bench, work = named(name), name] {
        RequestScope scope("req-" + name);
        bench.group->run(work);
      });
    };
    std::promise<void> running;
    std::promise<void> release;
    auto first = std::async(std::launch::async, [&] {
      RequestScope scope("req-first");
      bench.group->run([&](Connection& c) {
        named("first")(c);
        running.set_value();
        release.get_future().wait();
      });
    });
    running.get_future().wait();
    auto r1 = inRequest("r1");
    bench.awaitWaiting(1);
    auto r2 = inRequest("r2");
    bench.awaitWaiting(2);
    auto job = std::async(std::launch::async, [&] { bench.group->run(named("job")); });
    bench.awaitWaiting(3);
    release.set_value();
    for (auto* run : {&first, &r1, &r2, &job}) CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(*run));
    CPPUNIT_ASSERT(order == std::vector<std::string>({"first", "job", "r1", "r2"}));
  }

  void aQueuedWriteGivesUpAfterTheTimeout() {
    Bench bench(64, 50ms);
    std::promise<DbError::Kind> gaveUp;
    auto holder = std::async(std::launch::async, [&] {
      bench.group->run([&](Connection& c) {
        Bench::insert("a")(c);
        auto late = std::async(std::launch::async, [&] {
          return kindOf([&] { bench.group->run(Bench::insert("b")); });
        });
        gaveUp.set_value(late.get());  // waits here, in the batch, past the timeout
      });
    });
    CPPUNIT_ASSERT(gaveUp.get_future().get() == DbError::Kind::Busy);
    CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(holder));
    CPPUNIT_ASSERT_EQUAL(std::string("a "), bench.stored());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, bench.group->waiting());
  }

  // The leader runs other writers' work: under their request scope (the
  // event log records it with each event).
  void theMemberRunsUnderItsOwnRequestScope() {
    Bench bench;
    std::string seenByB = "unset";
    std::string leaderAfter = "unset";
    std::promise<void> running;
    auto a = std::async(std::launch::async, [&] {
      RequestScope scope("req-a");
      bench.group->run([&](Connection& c) {
        Bench::insert("a")(c);
        running.set_value();
        bench.awaitWaiting(1);  // b joins this batch, run by this thread
      });
      leaderAfter = RequestScope::current();
    });
    running.get_future().wait();
    auto b = std::async(std::launch::async, [&] {
      RequestScope scope("req-b");
      bench.group->run([&](Connection& c) {
        seenByB = RequestScope::current();
        Bench::insert("b")(c);
      });
    });
    CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(a));
    CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(b));
    CPPUNIT_ASSERT_EQUAL(std::string("req-b"), seenByB);
    CPPUNIT_ASSERT_EQUAL(std::string("req-a"), leaderAfter);  // restored after b's work
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{1}, bench.group->stats().batches);
  }

  // The hook given to the constructor (SQLite's search index, SearchQueue.h)
  // runs once per batch, after the last member, outside every member's
  // savepoint (a member rolled back does not take its writes with it), and
  // before the COMMIT (its writes are committed with the batch's).
  void theHookRunsOncePerBatchBeforeTheCommit() {
    int calls = 0;
    std::string seenByHook;
    Bench bench(64, 10s, [&](Connection& c) {
      ++calls;
      for (const auto& row : c.run("SELECT name FROM batch_items ORDER BY name", {})) {
        seenByHook += row.str("name") + " ";
      }
      c.run("INSERT INTO batch_items (name) VALUES ('hook')", {});
    });
    auto runs = bench.startQueued({Bench::insert("a"),
                                   [](Connection& c) {
                                     Bench::insert("b")(c);
                                     throw std::runtime_error("b changed its mind");
                                   },
                                   Bench::insert("c")});
    CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(runs[0]));
    CPPUNIT_ASSERT_EQUAL(std::string("b changed its mind"), outcome(runs[1]));
    CPPUNIT_ASSERT_EQUAL(std::string(""), outcome(runs[2]));
    CPPUNIT_ASSERT_EQUAL(1, calls);
    CPPUNIT_ASSERT_EQUAL(std::string("a c "), seenByHook);
    CPPUNIT_ASSERT_EQUAL(std::string("a c hook "), bench.stored());
  }

  // A hook that throws: nothing of the batch is committed, every member
  // gets the error, and the next batch is a fresh one.
  void aFailingHookLosesTheBatch() {
    bool fail = true;
    Bench bench(64, 10s, [&](Connection& c) {
      c.run("INSERT INTO batch_items (name) VALUES ('hook')", {});
      if (fail) c.run("INSERT INTO batch_items (name) VALUES (NULL)", {});
    });
    auto runs = bench.startQueued({Bench::insert("a"), Bench::insert("b")});
    const std::string first = outcome(runs[0]);
    CPPUNIT_ASSERT(first != "");
    CPPUNIT_ASSERT_EQUAL(first, outcome(runs[1]));
    CPPUNIT_ASSERT_EQUAL(std::string(""), bench.stored());
    fail = false;
    bench.group->run(Bench::insert("c"));
    CPPUNIT_ASSERT_EQUAL(std::string("c hook "), bench.stored());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(GroupCommitTest);
