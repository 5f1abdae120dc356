// The event log through the host's EventBus and storage, on the engine under
// test, with the host's real migrations.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "events/EventBus.h"
#include "events/EventLogReader.h"
#include "events/EventNumbering.h"
#include "events/HostEventTypes.h"
#include "log/RequestScope.h"
#include "rapport/time.h"
#include "storage/HostDatabase.h"

using namespace std::chrono_literals;
using rapport::Json;
using rapport::Tx;
using rapport::host::EventBus;

class EventLogTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EventLogTest);
  CPPUNIT_TEST(testSequencePerCompany);
  CPPUNIT_TEST(testRowCarriesModuleAndRequest);
  CPPUNIT_TEST(testListenerSeesEventInsideTransaction);
  CPPUNIT_TEST(testRollbackLeavesNoGap);
  CPPUNIT_TEST(testNumbersFollowCommitOrder);
  CPPUNIT_TEST(testConcurrentWritersSeeTheirNumbersOnReturn);
  CPPUNIT_TEST(testSweepNumbersWhatAWriterLeft);
  CPPUNIT_TEST(testWritersWakeTheNumberingReadersCatchUp);
  CPPUNIT_TEST(testUndeclaredTypeRefused);
  CPPUNIT_TEST(testRetentionRemovesOnlyOldEvents);
  CPPUNIT_TEST(testCatalogue);
  CPPUNIT_TEST(testHostTypes);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::storage::openWithHostMigrations();
    bus_ = std::make_unique<EventBus>();
    bus_->declare({"crm.note.created", "A note is created.", "notes"});
    bus_->declare({"crm.note.deleted", "A note is deleted.", "notes"});
    numbering_ = rapport::host::connectEventLog(*db_, *bus_);
  }

  void tearDown() override {
    numbering_.reset();
    db_.reset();
    bus_.reset();
  }

  void testSequencePerCompany() {
    emit("comp_a", "crm.note.created");
    emit("comp_b", "crm.note.created");
    db_->transaction("comp_a", [](Tx& tx) {
      tx.emit("crm.note.created", Json::object({{"id", "n2"}}));
      tx.emit("crm.note.deleted", Json::object({{"id", "n2"}}));
    });
    CPPUNIT_ASSERT_EQUAL(std::string("1,2,3"), sequences("comp_a"));
    CPPUNIT_ASSERT_EQUAL(std::string("1"), sequences("comp_b"));
  }

  void testRowCarriesModuleAndRequest() {
    {
      rapport::host::RequestScope scope("req-42");
      emit("comp_a", "crm.note.created");
    }
    emit("comp_a", "crm.note.deleted");  // outside a request
    auto rows = db_->query(
        "SELECT id, type, module, request_id, data, created_at FROM events "
        "WHERE company_id = 'comp_a' ORDER BY sequence");
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, rows.size());
    CPPUNIT_ASSERT_EQUAL(std::string("notes"), rows.rows[0].str("module"));
    CPPUNIT_ASSERT_EQUAL(std::string("req-42"), rows.rows[0].str("request_id"));
    CPPUNIT_ASSERT(rows.rows[1].isNull("request_id"));
    CPPUNIT_ASSERT_EQUAL(std::string("evt_"), rows.rows[0].str("id").substr(0, 4));
    CPPUNIT_ASSERT_EQUAL(std::string("{\"id\":\"n1\"}"), rows.rows[0].str("data"));
  }

  void testListenerSeesEventInsideTransaction() {
    rapport::Event seen;
    std::int64_t rowsInside = -1;
    bus_->listen([&](Tx& tx, const rapport::Event& event) {
      seen = event;
      rowsInside =
          tx.query("SELECT COUNT(*) AS n FROM events WHERE id = ?", {event.id}).front().i64("n");
    });
    emit("comp_a", "crm.note.created");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, rowsInside);
    CPPUNIT_ASSERT_EQUAL(std::string("notes"), seen.module);
    CPPUNIT_ASSERT_EQUAL(std::string("comp_a"), seen.companyId);
  }

  void testRollbackLeavesNoGap() {
    emit("comp_a", "crm.note.created");
    CPPUNIT_ASSERT_THROW(db_->transaction("comp_a",
                                          [](Tx& tx) {
                                            tx.emit("crm.note.created", Json::object());
                                            throw std::runtime_error("changed my mind");
                                          }),
                         std::runtime_error);
    emit("comp_a", "crm.note.created");
    CPPUNIT_ASSERT_EQUAL(std::string("1,2"), sequences("comp_a"));
  }

  // Numbers follow commit order. A emits and stays open; B emits and tries
  // to commit meanwhile. On SQLite B waits for A's commit (one writer), so
  // A commits first; on PostgreSQL B commits first (the number is taken at
  // commit, so A's open transaction holds nothing B needs). Either way the
  // transaction that committed first has number 1.
  void testNumbersFollowCommitOrder() {
    std::mutex mutex;
    std::condition_variable changed;
    bool aEmitted = false;
    bool release = false;
    auto a = std::async(std::launch::async, [&] {
      db_->transaction("comp_a", [&](Tx& tx) {
        tx.emit("crm.note.created", Json::object({{"by", "a"}}));
        std::unique_lock lock(mutex);
        aEmitted = true;
        changed.notify_all();
        changed.wait_for(lock, 10s, [&] { return release; });
      });
    });
    {
      std::unique_lock lock(mutex);
      CPPUNIT_ASSERT(changed.wait_for(lock, 10s, [&] { return aEmitted; }));
    }
    auto b = std::async(std::launch::async, [&] {
      db_->transaction("comp_a", [&](Tx& tx) {
        tx.emit("crm.note.created", Json::object({{"by", "b"}}));
      });
    });
    // PostgreSQL: B must finish while A is open (waited for up to 10 s).
    // SQLite: B must still wait after 300 ms (it cannot begin before A ends).
    const bool onPostgres = rapport::test::storage::onPostgres();
    const bool bCommittedFirst = b.wait_for(onPostgres ? 10s : 300ms) == std::future_status::ready;
    CPPUNIT_ASSERT_EQUAL(onPostgres, bCommittedFirst);
    {
      std::lock_guard lock(mutex);
      release = true;
    }
    changed.notify_all();
    a.get();
    b.get();
    auto rows = db_->query(
        "SELECT sequence, data FROM events WHERE company_id = 'comp_a' ORDER BY sequence");
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, rows.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, rows.rows[0].i64("sequence"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, rows.rows[1].i64("sequence"));
    CPPUNIT_ASSERT_EQUAL(std::string(bCommittedFirst ? "{\"by\":\"b\"}" : "{\"by\":\"a\"}"),
                         rows.rows[0].str("data"));
  }

  // 6 writers of one company at once, 20 transactions each (1 or 2 events),
  // without a job runner (committed() runs the pass itself): when
  // transaction() returns, the writer's events have their numbers, and the
  // company's log is 1..N with neither gap nor repeat, though writers'
  // passes overlap.
  void testConcurrentWritersSeeTheirNumbersOnReturn() {
    constexpr int kWriters = 6;
    constexpr int kTransactions = 20;
    std::vector<std::future<int>> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.push_back(std::async(std::launch::async, [this, w] {
        int unnumbered = 0;
        for (int t = 0; t < kTransactions; ++t) {
          const std::string mark = std::to_string(w) + "-" + std::to_string(t);
          db_->transaction("comp_a", [&](Tx& tx) {
            tx.emit("crm.note.created", Json::object({{"mark", mark}}));
            if (t % 2 == 0) tx.emit("crm.note.deleted", Json::object({{"mark", mark}}));
          });
          for (const auto& row : db_->query("SELECT sequence FROM events WHERE data = ?",
                                            {Json::object({{"mark", mark}}).dump()})) {
            if (row.i64("sequence") <= 0) ++unnumbered;
          }
        }
        return unnumbered;
      }));
    }
    for (auto& writer : writers) CPPUNIT_ASSERT_EQUAL(0, writer.get());
    const int total = kWriters * (kTransactions + kTransactions / 2);
    std::string expected;
    for (int n = 1; n <= total; ++n) expected += (n > 1 ? "," : "") + std::to_string(n);
    CPPUNIT_ASSERT_EQUAL(expected, sequences("comp_a"));
  }

  // PostgreSQL: an event committed without its pass (the writer died after
  // its commit) is invisible to readers until the sweep numbers it, after
  // the numbers already given.
  void testSweepNumbersWhatAWriterLeft() {
    if (!rapport::test::storage::onPostgres()) return;  // SQLite numbers in the write
    emit("comp_a", "crm.note.created");
    db_->exec(
        "INSERT INTO events (company_id, sequence, id, type, module, data, created_at) VALUES "
        "('comp_a', 0 - nextval('events_provisional'), 'evt_left', 'crm.note.created', 'notes', "
        "'{}', 1)");
    CPPUNIT_ASSERT(
        db_->query("SELECT sequence FROM events WHERE id = 'evt_left'").front().i64("sequence") <
        0);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, numbering_->pass());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, numbering_->pass());
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{2},
        db_->query("SELECT sequence FROM events WHERE id = 'evt_left'").front().i64("sequence"));
    emit("comp_a", "crm.note.created");
    CPPUNIT_ASSERT_EQUAL(std::string("1,2,3"), sequences("comp_a"));
  }

  // PostgreSQL with a job runner, as rapportd runs: a commit only wakes the
  // numbering (its events wait unnumbered, invisible to readers), and a
  // reader catches up first, so it sees every event committed before it.
  void testWritersWakeTheNumberingReadersCatchUp() {
    if (!rapport::test::storage::onPostgres()) return;  // SQLite numbers in the write
    auto waker = std::make_shared<CountingWaker>();
    numbering_->wakeWith(waker);
    emit("comp_a", "crm.note.created");
    emit("comp_a", "crm.note.deleted");
    CPPUNIT_ASSERT_EQUAL(2, waker->wakes.load());
    CPPUNIT_ASSERT_EQUAL(
        std::size_t{2},
        db_->query("SELECT id FROM events WHERE company_id = 'comp_a' AND sequence < 0").size());
    rapport::host::EventLogReader reader;
    reader.catchUpWith([this] { numbering_->catchUp(); });
    const rapport::EventPage page = reader.read(*db_, "comp_a", rapport::EventQuery{});
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, page.events.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, page.events[0].sequence);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.note.created"), page.events[0].event.type);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, page.events[1].sequence);
    // The job's pass, when the runner wakes it, numbers what came since.
    emit("comp_a", "crm.note.created");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, numbering_->pass());
    CPPUNIT_ASSERT_EQUAL(std::string("1,2,3"), sequences("comp_a"));
  }

  void testUndeclaredTypeRefused() {
    CPPUNIT_ASSERT_THROW(emit("comp_a", "crm.nothing.happened"), std::logic_error);
    CPPUNIT_ASSERT_EQUAL(std::string(""), sequences("comp_a"));
  }

  void testRetentionRemovesOnlyOldEvents() {
    emit("comp_a", "crm.note.created");
    emit("comp_a", "crm.note.created");
    emit("comp_a", "crm.note.created");
    db_->exec("UPDATE events SET created_at = 1000 WHERE sequence <= 2");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, EventBus::purgeOlderThan(*db_, 2000, 1));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, EventBus::purgeOlderThan(*db_, 2000, 10));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, EventBus::purgeOlderThan(*db_, 2000, 10));
    CPPUNIT_ASSERT_EQUAL(std::string("3"), sequences("comp_a"));
    // Numbers are never reused after a purge.
    emit("comp_a", "crm.note.created");
    CPPUNIT_ASSERT_EQUAL(std::string("3,4"), sequences("comp_a"));
  }

  void testCatalogue() {
    const auto types = bus_->types();
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, types.size());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.note.created"), types[0].type);
    CPPUNIT_ASSERT_EQUAL(std::string("notes"), bus_->find("crm.note.deleted")->module);
    CPPUNIT_ASSERT(!bus_->find("crm.nothing.happened"));
    CPPUNIT_ASSERT_THROW(bus_->declare({"crm.note.created", "again", "other"}), std::logic_error);
  }

  // Custom field events (decisions §14) are the host's, described, logged
  // with module "host", and no module may declare one.
  void testHostTypes() {
    rapport::host::declareHostEventTypes(*bus_);
    const std::pair<const char*, const char*> expected[] = {
        {"crm.field.created", "A custom field was created."},
        {"crm.field.updated", "A custom field was updated."},
        {"crm.field.deleted", "A custom field was deleted."}};
    for (const auto& [type, description] : expected) {
      const auto declared = bus_->find(type);
      CPPUNIT_ASSERT_MESSAGE(type, declared.has_value());
      CPPUNIT_ASSERT_EQUAL(std::string(description), declared->description);
      CPPUNIT_ASSERT_EQUAL(std::string("host"), declared->module);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, bus_->types().size());
    try {
      bus_->declare({"crm.field.updated", "Mine.", "contacts"});
      CPPUNIT_FAIL("a module declared a host event type");
    } catch (const std::logic_error& error) {
      CPPUNIT_ASSERT_EQUAL(std::string("event type 'crm.field.updated' is declared by both module "
                                       "'host' and module 'contacts'"),
                           std::string(error.what()));
    }
    emit("comp_a", "crm.field.deleted");
    const rapport::Result row =
        db_->query("SELECT module FROM events WHERE company_id = ? AND type = ?",
                   {"comp_a", "crm.field.deleted"});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, row.size());
    CPPUNIT_ASSERT_EQUAL(std::string("host"), row.front().str("module"));
  }

 private:
  struct CountingWaker final : rapport::JobWaker {
    std::atomic<int> wakes{0};
    void wake() override { ++wakes; }
    void wakeOne() override { ++wakes; }
  };

  void emit(const std::string& company, const std::string& type) {
    db_->transaction(company, [&](Tx& tx) { tx.emit(type, Json::object({{"id", "n1"}})); });
  }

  std::string sequences(const std::string& company) {
    std::string out;
    for (const auto& row : db_->query(
             "SELECT sequence FROM events WHERE company_id = ? ORDER BY sequence", {company})) {
      out += (out.empty() ? "" : ",") + std::to_string(row.i64("sequence"));
    }
    return out;
  }

  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<EventBus> bus_;
  std::shared_ptr<rapport::host::EventNumbering> numbering_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(EventLogTest);
