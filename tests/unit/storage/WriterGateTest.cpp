// WriterGate: SQLite writers of one process take turns on a mutex rather
// than in SQLite's sleeping busy handler; a nested write fails at once.
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "StorageTestSupport.h"
#include "log/RequestScope.h"
#include "rapport/db.h"
#include "storage/WriterGate.h"

using rapport::DbError;
using rapport::host::WriterGate;
using namespace std::chrono_literals;
using namespace rapport::test::storage;

class WriterGateTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WriterGateTest);
  CPPUNIT_TEST(secondWriterWaitsForTheFirst);
  CPPUNIT_TEST(waitEndsInBusyAfterTheTimeout);
  CPPUNIT_TEST(nestedWriteFailsAtOnce);
  CPPUNIT_TEST(openGateHoldsNothing);
  CPPUNIT_TEST(writeBesideOwnTransactionIsBusyOnSqliteOnly);
  CPPUNIT_TEST(concurrentTransactionsAllCommit);
  CPPUNIT_TEST(turnsInArrivalOrderBackgroundFirst);
  CPPUNIT_TEST_SUITE_END();

 public:
  void secondWriterWaitsForTheFirst() {
    WriterGate gate(true, 10s);
    std::promise<void> released;
    WriterGate::Pass first = gate.enter();
    auto second = std::async(std::launch::async, [&] {
      WriterGate::Pass pass = gate.enter();
      return released.get_future().wait_for(0s) == std::future_status::ready;
    });
    CPPUNIT_ASSERT(second.wait_for(50ms) == std::future_status::timeout);  // still waiting
    released.set_value();
    first.release();
    CPPUNIT_ASSERT(second.get());  // it entered only after the release
  }

  void waitEndsInBusyAfterTheTimeout() {
    WriterGate gate(true, 20ms);
    WriterGate::Pass held = gate.enter();
    auto other = std::async(std::launch::async, [&] {
      try {
        gate.enter();
        return false;
      } catch (const DbError& e) {
        return e.kind() == DbError::Kind::Busy;
      }
    });
    CPPUNIT_ASSERT(other.get());
  }

  void nestedWriteFailsAtOnce() {
    // With a long timeout a nested enter() that waited would hang the test.
    WriterGate gate(true, 600s);
    WriterGate::Pass held = gate.enter();
    CPPUNIT_ASSERT_THROW(gate.enter(), DbError);
    held.release();
    WriterGate::Pass again = gate.enter();  // the turn is free once released
  }

  void openGateHoldsNothing() {
    WriterGate gate(false, 1ms);
    WriterGate::Pass a = gate.enter();
    WriterGate::Pass b = gate.enter();
  }

  void writeBesideOwnTransactionIsBusyOnSqliteOnly() {
    auto db = openDatabase();
    db->exec("CREATE TABLE gate_items (n INTEGER NOT NULL)");
    if (db->dialect() == rapport::Dialect::SQLite) {
      // SQLite has one writer: the autocommit write could only wait for the
      // transaction around it. It fails at once instead of after the timeout.
      CPPUNIT_ASSERT_THROW(db->transaction("",
                                           [&](rapport::Tx& tx) {
                                             tx.exec("INSERT INTO gate_items (n) VALUES (1)");
                                             db->exec("INSERT INTO gate_items (n) VALUES (2)");
                                           }),
                           DbError);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                           db->query("SELECT COUNT(*) AS n FROM gate_items").front().i64("n"));
    } else {
      db->transaction("", [&](rapport::Tx& tx) {
        tx.exec("INSERT INTO gate_items (n) VALUES (1)");
        db->exec("INSERT INTO gate_items (n) VALUES (2)");
      });
      CPPUNIT_ASSERT_EQUAL(std::int64_t{2},
                           db->query("SELECT COUNT(*) AS n FROM gate_items").front().i64("n"));
    }
  }

  void concurrentTransactionsAllCommit() {
    auto db = openDatabase();
    db->exec("CREATE TABLE gate_counts (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
    db->exec("INSERT INTO gate_counts (id, n) VALUES (1, 0)");
    constexpr int kThreads = 8;
    constexpr int kEach = 25;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kEach; ++i) {
          db->transaction("", [](rapport::Tx& tx) {
            tx.exec("UPDATE gate_counts SET n = n + 1 WHERE id = 1");
          });
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kThreads * kEach},
                         db->query("SELECT n FROM gate_counts WHERE id = 1").front().i64("n"));
  }

  // Request writers take turns in arrival order; a writer outside any request
  // (a job) goes before the requests already waiting.
  void turnsInArrivalOrderBackgroundFirst() {
    WriterGate gate(true, 10s);
    std::mutex mutex;
    std::vector<std::string> order;
    auto writer = [&](std::string name, bool inRequest) {
      std::optional<rapport::host::RequestScope> scope;
      if (inRequest) scope.emplace("req-" + name);
      WriterGate::Pass pass = gate.enter();
      std::lock_guard lock(mutex);
      order.push_back(name);
    };
    auto queued = [&](std::size_t n) {
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (gate.waiting() < n && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      return gate.waiting() == n;
    };
    WriterGate::Pass held = gate.enter();
    auto r1 = std::async(std::launch::async, writer, "r1", true);
    CPPUNIT_ASSERT(queued(1));
    auto r2 = std::async(std::launch::async, writer, "r2", true);
    CPPUNIT_ASSERT(queued(2));
    auto r3 = std::async(std::launch::async, writer, "r3", true);
    CPPUNIT_ASSERT(queued(3));
    auto job = std::async(std::launch::async, writer, "job", false);
    CPPUNIT_ASSERT(queued(4));
    held.release();
    r1.get();
    r2.get();
    r3.get();
    job.get();
    CPPUNIT_ASSERT(order == std::vector<std::string>({"job", "r1", "r2", "r3"}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WriterGateTest);
