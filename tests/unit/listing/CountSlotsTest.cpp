// The count slots of the listing tables (rapport/listing_tables.h, since SDK
// 10.1): listingCountSlotsMigration, which rapport::Resource registers as
// "<storage.migration>_count_slots", runs once on a database migrated before
// it although its id sorts between two ids already applied; and on
// PostgreSQL concurrent writers of one company (and one tag) no longer queue
// on a count row. The proof of the queue: 12 transactions on 12 sessions,
// each inserting a contact of the same company with the same tags and not
// committing, with a lock wait of 2 s. Under the functions of
// listingTablesMigration (one of 8 slots at random) two of them share a slot
// (pigeonhole) and one runs out of lock wait; under the new ones all insert,
// and the totals (the sums of the slots) are exact. On SQLite (one writer)
// the migration is a comment: nothing changes, and the totals stay exact.
// The same for the deals module's deal_stage_totals (its 0010).
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ContactsResource.h"
#include "DealsTables.h"
#include "SchemaSnapshot.h"
#include "host_migrations.gen.h"
#include "rapport/db.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"
#include "support/TestEnv.h"

using rapport::Migration;
using rapport::Tx;
using rapport::host::Migrator;
using rapport::host::SqlDatabase;
using rapport::test::listing::joined;
using rapport::test::listing::schemaOf;

namespace {

constexpr int kWriters = 12;  // more than the 8 slots of listingTablesMigration
const std::string kCompany = "comp_slots";
const std::vector<std::string> kTags = {"vip", "lead"};

std::unique_ptr<SqlDatabase> slotsDatabase() {
  rapport::host::StorageOptions options;
  options.url = rapport::test::freshDatabaseUrl("slots");
  options.poolSize = kWriters + 4;
  options.lockTimeoutMs = 2000;
  // The host's migrations first, as rapportd applies them.
  auto db = SqlDatabase::open(options);
  Migrator(*db).apply({{"host", rapport_generated::host::migrations()}});
  return db;
}

// The contacts module's migrations as SDK 10.0 registered them: without the
// count slots' migration.
std::vector<Migration> contactsBeforeSlots() {
  std::vector<Migration> out;
  for (Migration& m : contacts::migrations()) {
    if (!m.id.ends_with("_count_slots")) out.push_back(std::move(m));
  }
  return out;
}

std::string appliedFlags(const std::vector<rapport::host::AppliedMigration>& applied) {
  std::string out;
  for (const auto& m : applied) out += m.id + (m.ran ? ":ran " : ":recorded ");
  return out;
}

void insertContact(rapport::Queryable& q, const std::string& id) {
  q.exec(
      "INSERT INTO contacts (id, company_id, name, tags, created_at, updated_at) "
      "VALUES (?, ?, ?, ?, ?, ?)",
      {id, kCompany, "Name " + id, std::string(R"(["vip","lead"])"), std::int64_t{1000},
       std::int64_t{1000}});
  for (const std::string& tag : kTags) {
    q.exec(
        "INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at) "
        "VALUES (?, ?, ?, ?)",
        {kCompany, id, tag, std::int64_t{1000}});
  }
}

void deleteContact(rapport::Queryable& q, const std::string& id) {
  q.exec("DELETE FROM contact_tags WHERE company_id = ? AND contact_id = ?", {kCompany, id});
  q.exec("DELETE FROM contacts WHERE company_id = ? AND id = ?", {kCompany, id});
}

std::string contactId(int i) {
  return "cont_slots" + std::to_string(i);
}

// Runs each of `work` in its own transaction on its own thread, all open at
// once: a transaction commits only after every one has done its work or
// failed. Returns the number that failed (a lock wait run out: DbError
// Busy; or a deadlock that ran out of runs).
int holdAtOnce(SqlDatabase& db, const std::vector<std::function<void(Tx&)>>& work) {
  std::latch done(static_cast<std::ptrdiff_t>(work.size()));
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (const auto& fn : work) {
    threads.emplace_back([&db, &done, &failed, &fn] {
      bool counted = false;  // a transaction run again (deadlock) counts once
      try {
        db.transaction(kCompany, [&](Tx& tx) {
          fn(tx);
          if (!counted) {
            counted = true;
            done.count_down();
          }
          done.wait();
        });
      } catch (const std::exception&) {
        ++failed;
        if (!counted) {
          counted = true;
          done.count_down();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return failed.load();
}

std::int64_t number(rapport::Queryable& q, const std::string& sql,
                    const rapport::Params& params = {}) {
  return q.query(sql, params).front().i64("n");
}

std::int64_t total(rapport::Queryable& q) {
  return number(q,
                "SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS n FROM contact_counts "
                "WHERE company_id = ?",
                {kCompany});
}

std::int64_t tagTotal(rapport::Queryable& q, const std::string& tag) {
  return number(q,
                "SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS n FROM contact_tag_counts "
                "WHERE company_id = ? AND tag_lower = ?",
                {kCompany, tag});
}

std::int64_t slotRows(rapport::Queryable& q) {
  return number(q, "SELECT COUNT(*) AS n FROM contact_counts WHERE company_id = ?", {kCompany});
}

std::int64_t tagSlotRows(rapport::Queryable& q, const std::string& tag) {
  return number(q,
                "SELECT COUNT(*) AS n FROM contact_tag_counts WHERE company_id = ? AND "
                "tag_lower = ?",
                {kCompany, tag});
}

std::vector<std::function<void(Tx&)>> inserts(int from, int count) {
  std::vector<std::function<void(Tx&)>> out;
  for (int i = from; i < from + count; ++i) {
    out.emplace_back([i](Tx& tx) { insertContact(tx, contactId(i)); });
  }
  return out;
}

std::vector<std::function<void(Tx&)>> deletes(int from, int count) {
  std::vector<std::function<void(Tx&)>> out;
  for (int i = from; i < from + count; ++i) {
    out.emplace_back([i](Tx& tx) { deleteContact(tx, contactId(i)); });
  }
  return out;
}

// The deals module's migrations before SDK 10.1's count slots (its 0009
// and 0010).
std::vector<Migration> dealsBeforeSlots() {
  std::vector<Migration> out;
  for (Migration& m : deals::migrations()) {
    if (!m.id.ends_with("_slots")) out.push_back(std::move(m));
  }
  return out;
}

std::string dealId(int i) {
  return "deal_slots" + std::to_string(i);
}

void insertDeal(rapport::Queryable& q, int i) {
  q.exec(
      "INSERT INTO deals (id, company_id, title, pipeline_id, stage_id, status, value, currency, "
      "probability, created_at, updated_at) "
      "VALUES (?, ?, ?, 'pipe_1', 'stage_a', 'open', ?, 'EUR', 10, 1000, 1000)",
      {dealId(i), kCompany, "Deal " + dealId(i), std::int64_t{100 + i}});
}

std::vector<std::function<void(Tx&)>> dealInserts(int count) {
  std::vector<std::function<void(Tx&)>> out;
  for (int i = 0; i < count; ++i) out.emplace_back([i](Tx& tx) { insertDeal(tx, i); });
  return out;
}

std::vector<std::function<void(Tx&)>> dealMoves(int count, const std::string& stage) {
  std::vector<std::function<void(Tx&)>> out;
  for (int i = 0; i < count; ++i) {
    out.emplace_back([i, stage](Tx& tx) {
      tx.exec("UPDATE deals SET stage_id = ? WHERE company_id = ? AND id = ?",
              {stage, kCompany, dealId(i)});
    });
  }
  return out;
}

// "deals cents" of a stage of pipe_1: the sums of its slot rows.
std::string stageTotals(rapport::Queryable& q, const std::string& stage) {
  const rapport::Row row =
      q.query(
           "SELECT CAST(COALESCE(SUM(deals_count), 0) AS BIGINT) AS deals, "
           "CAST(COALESCE(SUM(deals_value), 0) AS BIGINT) AS cents "
           "FROM deal_stage_totals WHERE company_id = ? AND pipeline_id = 'pipe_1' AND "
           "stage_id = ?",
           {kCompany, stage})
          .front();
  return std::to_string(row.i64("deals")) + " " + std::to_string(row.i64("cents"));
}

std::int64_t stageRows(rapport::Queryable& q, const std::string& stage) {
  return q
      .query(
          "SELECT COUNT(*) AS n FROM deal_stage_totals WHERE company_id = ? AND "
          "pipeline_id = 'pipe_1' AND stage_id = ?",
          {kCompany, stage})
      .front()
      .i64("n");
}

}  // namespace

class CountSlotsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CountSlotsTest);
  CPPUNIT_TEST(slotsMigrationRunsOnceBetweenAppliedIds);
  CPPUNIT_TEST(randomSlotsMakeConcurrentWritersWait);
  CPPUNIT_TEST(concurrentWritersOfOneCompanyDoNotWait);
  CPPUNIT_TEST(totalsStayExactOneWriterAtATime);
  CPPUNIT_TEST(dealStageTotalsDoNotMakeWritersWait);
  CPPUNIT_TEST_SUITE_END();

 public:
  // A database without the count slots has 0007_contacts (and the search's
  // follow-up) and 0008_contacts_custom_fields; 0007_contacts_count_slots
  // sorts between them and still runs, once.
  void slotsMigrationRunsOnceBetweenAppliedIds() {
    auto db = slotsDatabase();
    CPPUNIT_ASSERT_EQUAL(std::string("0007_contacts:ran 0007_contacts_search_queue:ran "
                                     "0008_contacts_custom_fields:ran "),
                         appliedFlags(Migrator(*db).apply({{"contacts", contactsBeforeSlots()}})));
    const std::vector<std::string> before = schemaOf(*db);
    Migrator upgrade(*db);
    CPPUNIT_ASSERT_EQUAL(std::string("0007_contacts_count_slots:ran "),
                         appliedFlags(upgrade.apply({{"contacts", contacts::migrations()}})));
    CPPUNIT_ASSERT_MESSAGE(joined(upgrade.warnings()), upgrade.warnings().empty());
    CPPUNIT_ASSERT_EQUAL(std::string(""),
                         appliedFlags(Migrator(*db).apply({{"contacts", contacts::migrations()}})));
    const std::string after = joined(schemaOf(*db));
    if (!rapport::test::onPostgres()) {
      CPPUNIT_ASSERT_EQUAL(joined(before), after);  // a comment only
      return;
    }
    // Both functions replaced, the triggers kept; as a fresh database has them.
    for (const std::string& expected : {std::string("function contact_counts_track"),
                                        std::string("function contact_tag_counts_track"),
                                        std::string("trigger contact_counts_track:"),
                                        std::string("trigger contact_tag_counts_track:")}) {
      CPPUNIT_ASSERT_MESSAGE(expected + "\n" + after, after.find(expected) != std::string::npos);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, occurrences(after, "FOR UPDATE SKIP LOCKED"));
    CPPUNIT_ASSERT(after.find("random() * 8") == std::string::npos);
    auto fresh = slotsDatabase();
    Migrator(*fresh).apply({{"contacts", contacts::migrations()}});
    CPPUNIT_ASSERT_EQUAL(joined(schemaOf(*fresh)), after);
  }

  // The queue the new functions remove, shown on the old ones: 12 writers
  // on 8 random slots, at least two on one slot, and the second waits until
  // its lock wait runs out.
  void randomSlotsMakeConcurrentWritersWait() {
    if (!rapport::test::onPostgres()) return;
    auto db = slotsDatabase();
    Migrator(*db).apply({{"contacts", contactsBeforeSlots()}});
    CPPUNIT_ASSERT(holdAtOnce(*db, inserts(0, kWriters)) >= 1);
  }

  void concurrentWritersOfOneCompanyDoNotWait() {
    if (!rapport::test::onPostgres()) return;
    auto db = slotsDatabase();
    // The upgrade's route: the old functions first, then the migration.
    Migrator(*db).apply({{"contacts", contactsBeforeSlots()}});
    Migrator(*db).apply({{"contacts", contacts::migrations()}});

    // 12 open transactions: none waits; each took a slot row of its own.
    CPPUNIT_ASSERT_EQUAL(0, holdAtOnce(*db, inserts(0, kWriters)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, total(*db));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, slotRows(*db));
    for (const std::string& tag : kTags) {
      CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, tagTotal(*db, tag));
      CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, tagSlotRows(*db, tag));
    }

    // 5 deletes at once: none waits; each took a free tag slot row (of 1),
    // which came back to 0 and went; the count rows stay.
    CPPUNIT_ASSERT_EQUAL(0, holdAtOnce(*db, deletes(0, 5)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5}, total(*db));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, slotRows(*db));
    for (const std::string& tag : kTags) {
      CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5}, tagTotal(*db, tag));
      CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5}, tagSlotRows(*db, tag));
    }

    // One writer at a time finds a free slot row: no new rows.
    for (int i = 100; i < 120; ++i) insertContact(*db, contactId(i));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5 + 20}, total(*db));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, slotRows(*db));
    for (const std::string& tag : kTags) {
      CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5 + 20}, tagTotal(*db, tag));
      CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5}, tagSlotRows(*db, tag));
    }
    // Several rows of one transaction count right too.
    db->transaction(kCompany, [](Tx& tx) {
      for (int i = 200; i < 203; ++i) insertContact(tx, contactId(i));
      deleteContact(tx, contactId(100));
    });
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5 + 20 + 2}, total(*db));
    for (const std::string& tag : kTags) {
      CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters - 5 + 20 + 2}, tagTotal(*db, tag));
    }
    CPPUNIT_ASSERT_EQUAL(
        total(*db),
        number(*db, "SELECT COUNT(*) AS n FROM contacts WHERE company_id = ?", {kCompany}));
  }

  // Both engines: the totals of inserts and deletes, one at a time, on an
  // upgraded database; a tag whose last record goes leaves no slot row.
  void totalsStayExactOneWriterAtATime() {
    auto db = slotsDatabase();
    Migrator(*db).apply({{"contacts", contactsBeforeSlots()}});
    for (int i = 0; i < 4; ++i) insertContact(*db, contactId(i));
    Migrator(*db).apply({{"contacts", contacts::migrations()}});
    for (int i = 4; i < 10; ++i) insertContact(*db, contactId(i));
    for (int i = 0; i < 3; ++i) deleteContact(*db, contactId(i));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, total(*db));
    for (const std::string& tag : kTags) CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, tagTotal(*db, tag));
    for (int i = 3; i < 10; ++i) deleteContact(*db, contactId(i));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, total(*db));
    for (const std::string& tag : kTags) {
      CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tagTotal(*db, tag));
      // On PostgreSQL the old functions' +1s may sit on other slots than
      // the new ones' -1s; those rows stay (their sum is 0). SQLite: one.
      if (!rapport::test::onPostgres())
        CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tagSlotRows(*db, tag));
    }
    // A company written only under the new functions, one at a time: one
    // slot row, and none left for a tag that is gone.
    const std::string other = "comp_slots_other";
    db->exec(
        "INSERT INTO contacts (id, company_id, name, tags, created_at, updated_at) "
        "VALUES ('cont_o1', ?, 'O', '[]', 1, 1)",
        {other});
    db->exec(
        "INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at) "
        "VALUES (?, 'cont_o1', 'solo', 1)",
        {other});
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1},
                         number(*db,
                                "SELECT COUNT(*) AS n FROM contact_tag_counts WHERE company_id = ? "
                                "AND tag_lower = 'solo'",
                                {other}));
    db->exec("DELETE FROM contact_tags WHERE company_id = ?", {other});
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{0},
        number(*db, "SELECT COUNT(*) AS n FROM contact_tag_counts WHERE company_id = ?", {other}));
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{1},
        number(*db, "SELECT COUNT(*) AS n FROM contact_counts WHERE company_id = ?", {other}));
  }

  // deal_stage_totals (deals' 0010): 12 open deals of one stage created at
  // once, then all moved to another stage at once; under 0006's 8 random
  // slots at least one create waits out its lock wait.
  void dealStageTotalsDoNotMakeWritersWait() {
    if (!rapport::test::onPostgres()) return;
    auto before = slotsDatabase();
    Migrator(*before).apply({{"deals", dealsBeforeSlots()}});
    CPPUNIT_ASSERT(holdAtOnce(*before, dealInserts(kWriters)) >= 1);

    auto db = slotsDatabase();
    Migrator(*db).apply({{"deals", dealsBeforeSlots()}});
    CPPUNIT_ASSERT_EQUAL(std::string("0009_deal_count_slots:ran 0010_deal_stage_totals_slots:ran "),
                         appliedFlags(Migrator(*db).apply({{"deals", deals::migrations()}})));
    CPPUNIT_ASSERT_EQUAL(0, holdAtOnce(*db, dealInserts(kWriters)));
    // 12 deals of 100..111 cents: 1266 cents, a slot row per writer.
    CPPUNIT_ASSERT_EQUAL(std::string("12 1266"), stageTotals(*db, "stage_a"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, stageRows(*db, "stage_a"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters},
                         number(*db,
                                "SELECT CAST(SUM(total) AS BIGINT) AS n FROM deal_counts WHERE "
                                "company_id = ?",
                                {kCompany}));
    // Each move takes a free row of stage_a (1 deal of another's cents: it
    // stays unless it comes back to 0 deals and 0 cents) and adds a row to
    // stage_b.
    CPPUNIT_ASSERT_EQUAL(0, holdAtOnce(*db, dealMoves(kWriters, "stage_b")));
    CPPUNIT_ASSERT_EQUAL(std::string("0 0"), stageTotals(*db, "stage_a"));
    CPPUNIT_ASSERT_EQUAL(std::string("12 1266"), stageTotals(*db, "stage_b"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{kWriters}, stageRows(*db, "stage_b"));
    const std::int64_t rowsA = stageRows(*db, "stage_a");
    // One at a time: no new rows; a deal won leaves the open totals.
    for (int i = 0; i < 3; ++i) {
      db->exec("UPDATE deals SET stage_id = 'stage_a' WHERE id = ?", {dealId(i)});
    }
    db->exec("UPDATE deals SET status = 'won' WHERE id = ?", {dealId(11)});
    CPPUNIT_ASSERT_EQUAL(std::string("3 303"), stageTotals(*db, "stage_a"));
    CPPUNIT_ASSERT_EQUAL(std::string("8 852"), stageTotals(*db, "stage_b"));
    CPPUNIT_ASSERT(stageRows(*db, "stage_a") <= std::max<std::int64_t>(rowsA, 1));
    CPPUNIT_ASSERT(stageRows(*db, "stage_b") <= kWriters);
  }

 private:
  static std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CountSlotsTest);
