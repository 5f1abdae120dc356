// SQLite's search index written once per write batch (storage/SearchQueue.h,
// host migration 0017): the search triggers of a record engine table only
// note the changed rows, and the batch's leader indexes them before the
// COMMIT. After a batch that creates, updates, deletes (and takes a deleted
// seq again) and rolls a member back, the index holds exactly the rows'
// current texts (FTS5's integrity-check against the table agrees), and the
// queue is empty; without the flush it would not. A database migrated
// before 0017 gets the new triggers and keeps its index. On PostgreSQL the
// migrations run and there is no queue (its GIN index is PostgreSQL's own).
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "StorageTestSupport.h"
#include "host_migrations.gen.h"
#include "rapport/resource.h"
#include "storage/Connection.h"
#include "storage/GroupCommit.h"
#include "storage/Migrator.h"
#include "storage/SearchQueue.h"
#include "storage/SessionPool.h"

using rapport::Migration;
using rapport::host::Connection;
using rapport::host::GroupCommit;
using rapport::host::MigrationSet;
using rapport::host::Migrator;
using rapport::host::SearchQueue;
using rapport::host::SessionPool;
using rapport::host::SqlDatabase;
using namespace std::chrono_literals;
using namespace rapport::test::storage;

namespace {

// A fresh database with the host's migrations (0017 among them).
std::unique_ptr<SqlDatabase> openWithHostMigrations() {
  auto db = openDatabase();
  Migrator(*db).apply({{"host", rapport_generated::host::migrations()}});
  return db;
}

// A record engine table with two searchable fields: notes, its FTS5 index
// notes_search, and its migrations (the table's, then the follow-up that
// moves its triggers to search_queue).
rapport::ResourceSpec notesSpec() {
  return {
      .path = "/crm/notes",
      .table = "notes",
      .recordType = "note",
      .idPrefix = "note_",
      .eventPrefix = "crm.note",
      .noun = "Note",
      .fields = {{.name = "title", .required = true, .searchable = true},
                 {.name = "body", .searchable = true}},
      .storage = {.migration = "0001_notes", .recordColumn = "note_id"},
  };
}

std::vector<Migration> notesMigrations() {
  return rapport::Resource(notesSpec()).migrations();
}

void migrateNotes(SqlDatabase& db, const std::vector<Migration>& migrations) {
  Migrator(db).apply({{"notes", migrations}});
}

std::vector<Migration> without(std::vector<Migration> migrations, const std::string& id) {
  std::erase_if(migrations, [&](const Migration& m) { return m.id == id; });
  return migrations;
}

const std::string kFollowUp = "0001_notes_search_queue";

// Work on the writer's connection.
using Work = std::function<void(Connection&)>;

Work insert(const std::string& id, const std::string& title) {
  return [id, title](Connection& c) {
    c.run(
        "INSERT INTO notes (id, company_id, title, created_at, updated_at) "
        "VALUES (?, 'comp_a', ?, 0, 0)",
        {rapport::Value(id), rapport::Value(title)});
  };
}

Work retitle(const std::string& id, const std::string& title) {
  return [id, title](Connection& c) {
    c.run("UPDATE notes SET title = ? WHERE id = ?", {rapport::Value(title), rapport::Value(id)});
  };
}

Work drop(const std::string& id) {
  return [id](Connection& c) { c.run("DELETE FROM notes WHERE id = ?", {rapport::Value(id)}); };
}

Work all(std::vector<Work> steps) {
  return [steps](Connection& c) {
    for (const Work& step : steps) step(c);
  };
}

// A GroupCommit over the database's pool, as SqlDatabaseImpl builds it on
// SQLite (with the flush) or without the flush.
std::unique_ptr<GroupCommit> groupOver(SqlDatabase& db, bool flush) {
  SessionPool& pool = poolOf(db);
  GroupCommit::BeforeCommit beforeCommit;
  if (flush) {
    auto queue = std::make_shared<SearchQueue>();
    beforeCommit = [queue](Connection& c) { queue->flush(c); };
  }
  return std::make_unique<GroupCommit>(
      [&pool] {
        SessionPool::Lease lease = pool.acquire();
        lease->begin();
        return lease;
      },
      64, 10s, beforeCommit);
}

void awaitWaiting(GroupCommit& group, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (group.waiting() < count) {
    if (std::chrono::steady_clock::now() > deadline) CPPUNIT_FAIL("writers never queued");
    std::this_thread::sleep_for(1ms);
  }
}

// Runs `works` as concurrent writers in ONE batch: the first's work waits
// until all the others queued behind it. Returns what each threw ("": none).
std::vector<std::string> oneBatch(GroupCommit& group, const std::vector<Work>& works) {
  const auto batchesBefore = group.stats().batches;
  std::promise<void> firstIn;
  std::vector<std::future<void>> runs;
  const std::size_t others = works.size() - 1;
  runs.push_back(std::async(std::launch::async, [&] {
    group.run([&](Connection& c) {
      firstIn.set_value();
      works.front()(c);
      awaitWaiting(group, others);
    });
  }));
  firstIn.get_future().wait();
  for (std::size_t i = 1; i < works.size(); ++i) {
    runs.push_back(std::async(std::launch::async, [&group, work = works[i]] { group.run(work); }));
    if (i < others) awaitWaiting(group, i);  // in order: first come, first served
  }
  std::vector<std::string> outcomes;
  for (auto& run : runs) {
    try {
      run.get();
      outcomes.emplace_back("");
    } catch (const std::exception& e) {
      outcomes.emplace_back(e.what());
    }
  }
  CPPUNIT_ASSERT_EQUAL(batchesBefore + 1, group.stats().batches);
  return outcomes;
}

// The ids whose current search_text holds `term`, from the table itself.
std::string holding(SqlDatabase& db, const std::string& term) {
  std::string ids;
  for (const auto& row :
       db.query("SELECT id FROM notes WHERE search_text LIKE ? ORDER BY id", {"%" + term + "%"})) {
    ids += row.str("id") + " ";
  }
  return ids;
}

// The ids the search index finds for `term` (as ?search= asks it).
std::string found(SqlDatabase& db, const std::string& term) {
  std::string ids;
  for (const auto& row : db.query("SELECT id FROM notes WHERE seq IN (SELECT rowid FROM "
                                  "notes_search WHERE notes_search MATCH ?) ORDER BY id",
                                  {"\"" + term + "\""})) {
    ids += row.str("id") + " ";
  }
  return ids;
}

// FTS5's check of the index against the table (rank 1: against the content),
// in autocommit on a session of its own: through the database's batches
// the check would be followed by a flush.
bool indexAgrees(SqlDatabase& db) {
  try {
    poolOf(db).acquire()->run(
        "INSERT INTO notes_search (notes_search, rank) VALUES ('integrity-check', 1)", {});
    return true;
  } catch (const rapport::DbError&) {
    return false;
  }
}

std::int64_t queued(SqlDatabase& db) {
  return db.query("SELECT count(*) AS n FROM search_queue").front().i64("n");
}

// Every term ever written in the tests below.
const std::vector<std::string> kTerms = {"alpha",  "amber",   "uno",  "bravo", "charlie", "delta",
                                         "echo",   "foxtrot", "golf", "hotel", "ocho",    "india",
                                         "juliet", "zulu",    "kilo", "one"};

// Fails unless the index finds, for every term, exactly the rows holding it.
void assertIndexIsTheTable(SqlDatabase& db) {
  for (const std::string& term : kTerms) {
    CPPUNIT_ASSERT_EQUAL_MESSAGE(term, holding(db, term), found(db, term));
  }
  CPPUNIT_ASSERT(indexAgrees(db));
  CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, queued(db));
}

// Rows a, b, c, d, e committed and indexed by an earlier batch; e has the
// highest seq, so a row created after e's delete takes e's seq again.
void seed(GroupCommit& group) {
  group.run(all({insert("a", "alpha one"), insert("b", "bravo"), insert("c", "charlie"),
                 insert("d", "delta"), insert("e", "echo")}));
}

// The batch: every kind of change, several of them to one row, and a member
// rolled back.
std::vector<Work> mixedBatch() {
  return {
      all({drop("e"), insert("g", "golf")}),  // g takes e's seq
      all({insert("f", "foxtrot"), retitle("a", "amber one"), retitle("a", "amber uno")}),
      all({insert("h", "hotel"), retitle("h", "hotel ocho")}),
      all({insert("i", "india"), drop("i")}),
      [](Connection& c) {
        retitle("c", "zulu")(c);
        insert("j", "juliet")(c);
        throw std::runtime_error("j changed its mind");
      },
      drop("b"),
  };
}

}  // namespace

class SearchQueueTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SearchQueueTest);
  CPPUNIT_TEST(oneBatchIndexesExactlyTheCurrentTexts);
  CPPUNIT_TEST(withoutTheFlushTheIndexWouldBeWrong);
  CPPUNIT_TEST(theDatabaseFlushesItsBatchesAndItsMigrations);
  CPPUNIT_TEST(anOlderDatabaseGetsTheNewTriggersAndKeepsItsIndex);
  CPPUNIT_TEST(notesOfADroppedTableAreDropped);
  CPPUNIT_TEST_SUITE_END();

 public:
  void oneBatchIndexesExactlyTheCurrentTexts() {
    auto db = openWithHostMigrations();
    migrateNotes(*db, notesMigrations());
    if (onPostgres()) {
      // No queue and no FTS5 table: the follow-up is a comment.
      CPPUNIT_ASSERT(db->query("SELECT 1 FROM information_schema.tables WHERE table_name = "
                               "'search_queue'")
                         .empty());
      return;
    }
    auto group = groupOver(*db, true);
    seed(*group);
    assertIndexIsTheTable(*db);
    const auto e = db->query("SELECT seq FROM notes WHERE id = 'e'").front().i64("seq");

    const std::vector<std::string> outcomes = oneBatch(*group, mixedBatch());
    CPPUNIT_ASSERT(outcomes ==
                   std::vector<std::string>({"", "", "", "", "j changed its mind", ""}));
    CPPUNIT_ASSERT_EQUAL(e, db->query("SELECT seq FROM notes WHERE id = 'g'").front().i64("seq"));
    CPPUNIT_ASSERT_EQUAL(std::string("a c d f g h "), holding(*db, ""));
    CPPUNIT_ASSERT_EQUAL(std::string("a "), found(*db, "amber uno"));
    CPPUNIT_ASSERT_EQUAL(std::string("c "), found(*db, "charlie"));
    assertIndexIsTheTable(*db);

    // A second batch over the rows the first one indexed.
    oneBatch(*group, std::vector<Work>{retitle("g", "kilo"), drop("a"), insert("k", "kilo one")});
    assertIndexIsTheTable(*db);
  }

  // The test above fails without the flush: the triggers only queue.
  void withoutTheFlushTheIndexWouldBeWrong() {
    if (onPostgres()) return;
    auto db = openWithHostMigrations();
    migrateNotes(*db, notesMigrations());
    seed(*groupOver(*db, true));
    auto unflushed = groupOver(*db, false);
    oneBatch(*unflushed, mixedBatch());
    CPPUNIT_ASSERT(queued(*db) > 0);
    CPPUNIT_ASSERT(!indexAgrees(*db));
    CPPUNIT_ASSERT_EQUAL(std::string(""), found(*db, "foxtrot"));
    CPPUNIT_ASSERT_EQUAL(std::string("a "), found(*db, "alpha"));
    // Whatever is left is flushed by the next batch that flushes.
    groupOver(*db, true)->run(insert("l", "lima"));
    assertIndexIsTheTable(*db);
    CPPUNIT_ASSERT_EQUAL(std::string("f "), found(*db, "foxtrot"));
  }

  // SqlDatabaseImpl's own writes (transactions and single statements) flush,
  // and so do its migrations (rows they write are searchable after them).
  void theDatabaseFlushesItsBatchesAndItsMigrations() {
    auto db = openWithHostMigrations();
    std::vector<Migration> migrations = notesMigrations();
    migrations.emplace_back(
        "0002_notes_seed",
        "INSERT INTO notes (id, company_id, title, created_at, updated_at) VALUES "
        "('m', 'comp_a', 'echo from a migration', 0, 0);",
        "INSERT INTO notes (id, company_id, title, created_at, updated_at) VALUES "
        "('m', 'comp_a', 'echo from a migration', 0, 0);");
    migrateNotes(*db, migrations);
    if (onPostgres()) {
      CPPUNIT_ASSERT_EQUAL(std::string("m "), holding(*db, "echo"));
      return;
    }
    CPPUNIT_ASSERT_EQUAL(std::string("m "), found(*db, "echo"));
    db->transaction("comp_a", [](rapport::Tx& tx) {
      tx.exec(
          "INSERT INTO notes (id, company_id, title, created_at, updated_at) "
          "VALUES ('n', 'comp_a', 'golf', 0, 0)");
      tx.exec("UPDATE notes SET title = 'hotel' WHERE id = 'm'");
    });
    db->exec("DELETE FROM notes WHERE id = 'n'");
    db->exec(
        "INSERT INTO notes (id, company_id, title, created_at, updated_at) "
        "VALUES ('o', 'comp_a', 'india', 0, 0)");
    CPPUNIT_ASSERT_EQUAL(std::string("m "), found(*db, "hotel"));
    CPPUNIT_ASSERT_EQUAL(std::string("o "), found(*db, "india"));
    assertIndexIsTheTable(*db);
  }

  // A database whose table was created (and filled) with the row-by-row
  // triggers, and whose later migration is applied too: the follow-up, an
  // id between applied ones, runs, replaces the triggers and keeps the index.
  void anOlderDatabaseGetsTheNewTriggersAndKeepsItsIndex() {
    auto db = openDatabase();
    std::vector<Migration> host = rapport_generated::host::migrations();
    std::erase_if(host, [](const Migration& m) { return m.id >= "0017"; });
    Migrator(*db).apply({{"host", host}});
    std::vector<Migration> notes = notesMigrations();
    const Migration later("0002_notes_later", "SELECT 1;", "SELECT 1;");
    notes.push_back(later);
    migrateNotes(*db, without(notes, kFollowUp));
    db->exec(
        "INSERT INTO notes (id, company_id, title, created_at, updated_at) "
        "VALUES ('a', 'comp_a', 'alpha', 0, 0)");
    db->exec("UPDATE notes SET title = 'amber' WHERE id = 'a'");
    db->exec(
        "INSERT INTO notes (id, company_id, title, created_at, updated_at) "
        "VALUES ('b', 'comp_a', 'bravo', 0, 0)");

    Migrator(*db).apply({{"host", rapport_generated::host::migrations()}});
    const auto applied = Migrator(*db).apply({{"notes", notes}});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, applied.size());
    CPPUNIT_ASSERT_EQUAL(kFollowUp, applied.front().id);
    if (onPostgres()) return;
    const std::string trigger = db->query(
                                      "SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                                      "AND name = 'notes_search_update'")
                                    .front()
                                    .str("sql");
    CPPUNIT_ASSERT(trigger.find("search_queue") != std::string::npos);
    assertIndexIsTheTable(*db);
    CPPUNIT_ASSERT_EQUAL(std::string("a "), found(*db, "amber"));
    db->exec("UPDATE notes SET title = 'charlie' WHERE id = 'a'");
    db->exec("DELETE FROM notes WHERE id = 'b'");
    CPPUNIT_ASSERT_EQUAL(std::string("a "), found(*db, "charlie"));
    assertIndexIsTheTable(*db);
  }

  // Notes of a table that has no index any more (a hand-made row, or a
  // table dropped since) are dropped rather than failing every batch.
  void notesOfADroppedTableAreDropped() {
    if (onPostgres()) return;
    auto db = openWithHostMigrations();
    migrateNotes(*db, notesMigrations());
    auto group = groupOver(*db, true);
    group->run([](Connection& c) {
      c.run(
          "INSERT INTO search_queue (tbl, rid, old_text, indexed) VALUES "
          "('gone', 1, NULL, 0), ('x; DROP TABLE notes', 2, NULL, 0)",
          {});
    });
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, queued(*db));
    group->run(insert("a", "alpha"));
    assertIndexIsTheTable(*db);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SearchQueueTest);
