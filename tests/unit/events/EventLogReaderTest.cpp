// The event log as Host::eventLog reads it (EventLogReader), on the engine
// under test, with the host's real migrations: committed events only, in
// sequence order, after a cursor, since a time, of some types, a limit, and
// `truncated` once the retention removed events a query asks for.
#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <vector>

#include "events/EventBus.h"
#include "events/EventLogReader.h"
#include "events/EventNumbering.h"
#include "log/RequestScope.h"
#include "storage/HostDatabase.h"

using rapport::EventPage;
using rapport::EventQuery;
using rapport::Json;
using rapport::Tx;
using rapport::host::EventBus;
using rapport::host::EventLogReader;

class EventLogReaderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EventLogReaderTest);
  CPPUNIT_TEST(testAfterCursorInOrderPerCompany);
  CPPUNIT_TEST(testEventFields);
  CPPUNIT_TEST(testTypesFilter);
  CPPUNIT_TEST(testSinceFilter);
  CPPUNIT_TEST(testLimitClamped);
  CPPUNIT_TEST(testUncommittedEventsNotRead);
  CPPUNIT_TEST(testTruncatedByCursor);
  CPPUNIT_TEST(testTruncatedBySince);
  CPPUNIT_TEST(testHorizonOnlyGrows);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::storage::openWithHostMigrations();
    bus_ = std::make_unique<EventBus>();
    bus_->declare({"crm.note.created", "A note is created.", "notes"});
    bus_->declare({"crm.note.deleted", "A note is deleted.", "notes"});
    bus_->declare({"crm.task.created", "A task is created.", "tasks"});
    numbering_ = rapport::host::connectEventLog(*db_, *bus_);
  }

  void tearDown() override {
    numbering_.reset();
    db_.reset();
    bus_.reset();
  }

  void testAfterCursorInOrderPerCompany() {
    for (int i = 1; i <= 5; ++i) emit("comp_a", "crm.note.created", i);
    emit("comp_b", "crm.note.created", 100);
    CPPUNIT_ASSERT_EQUAL(std::string("3,4"), sequences(read("comp_a", q(2, 0, {}, 2))));
    CPPUNIT_ASSERT_EQUAL(std::string("1,2,3,4,5"), sequences(read("comp_a", q())));
    CPPUNIT_ASSERT_EQUAL(std::string(""), sequences(read("comp_a", q(5))));
    // Another company's log is its own: one event, numbered 1.
    const EventPage b = read("comp_b", q());
    CPPUNIT_ASSERT_EQUAL(std::string("1"), sequences(b));
    CPPUNIT_ASSERT_EQUAL(std::string("comp_b"), b.events[0].event.companyId);
    CPPUNIT_ASSERT(!b.truncated);
    CPPUNIT_ASSERT_EQUAL(std::string(""), sequences(read("comp_none", q())));
  }

  void testEventFields() {
    {
      rapport::host::RequestScope scope("req-7");
      emit("comp_a", "crm.task.created", 1);
    }
    emit("comp_a", "crm.note.deleted", 2);
    const EventPage page = read("comp_a", q());
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, page.events.size());
    const rapport::Event& first = page.events[0].event;
    CPPUNIT_ASSERT_EQUAL(std::string("evt_"), first.id.substr(0, 4));
    CPPUNIT_ASSERT_EQUAL(std::string("crm.task.created"), first.type);
    CPPUNIT_ASSERT_EQUAL(std::string("tasks"), first.module);
    CPPUNIT_ASSERT_EQUAL(std::string("req-7"), first.requestId);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"n\":1}"), first.data.dump());
    CPPUNIT_ASSERT(first.createdAt > 0);
    CPPUNIT_ASSERT_EQUAL(std::string(""), page.events[1].event.requestId);
    CPPUNIT_ASSERT_EQUAL(std::string("notes"), page.events[1].event.module);
  }

  void testTypesFilter() {
    emit("comp_a", "crm.note.created", 1);
    emit("comp_a", "crm.task.created", 2);
    emit("comp_a", "crm.note.deleted", 3);
    emit("comp_a", "crm.task.created", 4);
    CPPUNIT_ASSERT_EQUAL(std::string("2,4"),
                         sequences(read("comp_a", q(0, 0, {"crm.task.created"}))));
    CPPUNIT_ASSERT_EQUAL(
        std::string("1,3"),
        sequences(read("comp_a", q(0, 0, {"crm.note.created", "crm.note.deleted"}))));
    CPPUNIT_ASSERT_EQUAL(std::string("4"),
                         sequences(read("comp_a", q(2, 0, {"crm.task.created"}))));
    CPPUNIT_ASSERT_EQUAL(std::string(""), sequences(read("comp_a", q(0, 0, {"crm.other"}))));
  }

  void testSinceFilter() {
    for (int i = 1; i <= 4; ++i) emit("comp_a", "crm.note.created", i);
    db_->exec("UPDATE events SET created_at = 1000 * sequence WHERE company_id = 'comp_a'");
    CPPUNIT_ASSERT_EQUAL(std::string("3,4"), sequences(read("comp_a", q(0, 3000))));
    CPPUNIT_ASSERT_EQUAL(std::string("4"), sequences(read("comp_a", q(3, 2000))));
  }

  void testLimitClamped() {
    db_->transaction("comp_a", [](Tx& tx) {
      for (std::size_t i = 0; i <= EventLogReader::kMaxLimit; ++i) {
        tx.emit("crm.note.created", Json::object());
      }
    });
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, read("comp_a", q(0, 0, {}, 0)).events.size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{7}, read("comp_a", q(0, 0, {}, 7)).events.size());
    const EventPage most = read("comp_a", q(0, 0, {}, 5000));
    CPPUNIT_ASSERT_EQUAL(EventLogReader::kMaxLimit, most.events.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1000}, most.events.back().sequence);
  }

  // On PostgreSQL an event row carries a provisional negative sequence until
  // its transaction commits (migration 0003): a read inside that
  // transaction must not return it. (On SQLite the number is final at once
  // and the transaction sees its own row: the readers never read the log in
  // a transaction that emitted first.)
  void testUncommittedEventsNotRead() {
    emit("comp_a", "crm.note.created", 1);
    std::string inside;
    db_->transaction("comp_a", [&](Tx& tx) {
      tx.emit("crm.note.created", Json::object({{"n", 2}}));
      inside = sequences(EventLogReader().read(tx, "comp_a", q()));
      if (rapport::test::storage::onPostgres()) {
        const auto provisional = tx.query(
            "SELECT COUNT(*) AS n FROM events WHERE company_id = 'comp_a' AND sequence < 0");
        CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, provisional.front().i64("n"));
      }
    });
    CPPUNIT_ASSERT_EQUAL(std::string(rapport::test::storage::onPostgres() ? "1" : "1,2"), inside);
    CPPUNIT_ASSERT_EQUAL(std::string("1,2"), sequences(read("comp_a", q())));
  }

  void testTruncatedByCursor() {
    for (int i = 1; i <= 4; ++i) emit("comp_a", "crm.note.created", i);
    emit("comp_b", "crm.note.created", 1);
    db_->exec("UPDATE events SET created_at = 1000 WHERE company_id = 'comp_a' AND sequence <= 2");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, EventBus::purgeOlderThan(*db_, 2000, 10));
    CPPUNIT_ASSERT_EQUAL(std::string("2,2000"), horizon("comp_a"));
    CPPUNIT_ASSERT_EQUAL(std::string("0,0"), horizon("comp_b"));

    const EventPage fromStart = read("comp_a", q());
    CPPUNIT_ASSERT(fromStart.truncated);
    CPPUNIT_ASSERT_EQUAL(std::string("3,4"), sequences(fromStart));
    CPPUNIT_ASSERT(read("comp_a", q(1)).truncated);
    CPPUNIT_ASSERT(!read("comp_a", q(2)).truncated);
    CPPUNIT_ASSERT(!read("comp_a", q(3)).truncated);
    CPPUNIT_ASSERT(!read("comp_b", q()).truncated);  // nothing of comp_b went
  }

  void testTruncatedBySince() {
    for (int i = 1; i <= 3; ++i) emit("comp_a", "crm.note.created", i);
    db_->exec("UPDATE events SET created_at = 1000 * sequence WHERE company_id = 'comp_a'");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, EventBus::purgeOlderThan(*db_, 1500, 10));
    CPPUNIT_ASSERT(read("comp_a", q(1, 1499)).truncated);
    CPPUNIT_ASSERT(!read("comp_a", q(1, 1500)).truncated);
    const EventPage kept = read("comp_a", q(1, 2500));
    CPPUNIT_ASSERT(!kept.truncated);
    CPPUNIT_ASSERT_EQUAL(std::string("3"), sequences(kept));
  }

  // A later purge with an older cut-off, or one that removes nothing of a
  // company, never lowers its horizon.
  void testHorizonOnlyGrows() {
    for (int i = 1; i <= 3; ++i) emit("comp_a", "crm.note.created", i);
    db_->exec("UPDATE events SET created_at = 1000 * sequence WHERE company_id = 'comp_a'");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, EventBus::purgeOlderThan(*db_, 2500, 10));
    CPPUNIT_ASSERT_EQUAL(std::string("2,2500"), horizon("comp_a"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, EventBus::purgeOlderThan(*db_, 2000, 10));
    CPPUNIT_ASSERT_EQUAL(std::string("2,2500"), horizon("comp_a"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, EventBus::purgeOlderThan(*db_, 9000, 10));
    CPPUNIT_ASSERT_EQUAL(std::string("3,9000"), horizon("comp_a"));
    // Numbers go on after the last one, even with the log empty.
    emit("comp_a", "crm.note.created", 4);
    CPPUNIT_ASSERT_EQUAL(std::string("4"), sequences(read("comp_a", q())));
  }

 private:
  void emit(const std::string& company, const std::string& type, int n) {
    db_->transaction(company, [&](Tx& tx) { tx.emit(type, Json::object({{"n", n}})); });
  }

  static EventQuery q(std::int64_t after = 0, std::int64_t since = 0,
                      std::vector<std::string> types = {}, std::size_t limit = 100) {
    return {.afterSequence = after, .since = since, .types = std::move(types), .limit = limit};
  }

  EventPage read(const std::string& company, const EventQuery& query) {
    return EventLogReader().read(*db_, company, query);
  }

  static std::string sequences(const EventPage& page) {
    std::string out;
    for (const auto& logged : page.events) {
      out += (out.empty() ? "" : ",") + std::to_string(logged.sequence);
    }
    return out;
  }

  // "purged_through,purged_before" of the company's counter row.
  std::string horizon(const std::string& company) {
    const auto rows =
        db_->query("SELECT purged_through, purged_before FROM event_sequences WHERE company_id = ?",
                   {company});
    if (rows.empty()) return "none";
    return std::to_string(rows.front().i64("purged_through")) + "," +
           std::to_string(rows.front().i64("purged_before"));
  }

  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<EventBus> bus_;
  std::shared_ptr<rapport::host::EventNumbering> numbering_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(EventLogReaderTest);
