// The Migrator: applies each migration once, records it, rolls back a
// failing one, and stays exactly-once with two instances starting together.
#include <cppunit/extensions/HelperMacros.h>

#include <latch>
#include <thread>

#include "StorageTestSupport.h"
#include "rapport/ids.h"
#include "storage/Migrator.h"

using rapport::Migration;
using rapport::host::AppliedMigration;
using rapport::host::MigrationSet;
using rapport::host::Migrator;
using namespace rapport::test::storage;

namespace {

// The same SQL for both engines.
Migration portable(const std::string& id, const std::string& sql) {
  return {id, sql, sql};
}

std::vector<MigrationSet> contactSets() {
  return {
      {"host",
       {portable("0002_notes",
                 "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT);"
                 "INSERT INTO notes (id, body) VALUES ('n1', 'semi;colon');"),
        portable("0001_people", "CREATE TABLE people (id TEXT PRIMARY KEY, name TEXT NOT NULL);")}},
      {"contacts",
       {portable("0001_contacts",
                 "-- a comment; with a semicolon\n"
                 "CREATE TABLE contacts (id TEXT PRIMARY KEY, person_id TEXT REFERENCES "
                 "people(id));\nCREATE INDEX contacts_person ON contacts (person_id);\n")}}};
}

std::string names(const std::vector<AppliedMigration>& applied) {
  std::string out;
  for (const auto& m : applied) out += m.owner + "/" + m.id + " ";
  return out;
}

// The history a squash replaces: a table, then a column added to it.
std::vector<Migration> history() {
  return {portable("0001_t", "CREATE TABLE t (x BIGINT);"),
          portable("0002_t_y", "ALTER TABLE t ADD COLUMN y TEXT;")};
}

// The squash of history(), and a later migration after it.
std::vector<Migration> squashed() {
  return {Migration("0003_t", "CREATE TABLE t (x BIGINT, y TEXT);",
                    "CREATE TABLE t (x BIGINT, y TEXT);", {"0001_t", "0002_t_y"}),
          portable("0004_t_z", "ALTER TABLE t ADD COLUMN z TEXT;")};
}

std::string ledgerIds(rapport::Database& db, const std::string& owner) {
  std::string out;
  for (const auto& row :
       db.query("SELECT id FROM schema_migrations WHERE owner = ? ORDER BY id", {owner})) {
    out += row.str("id") + " ";
  }
  return out;
}

std::string ranFlags(const std::vector<AppliedMigration>& applied) {
  std::string out;
  for (const auto& m : applied) out += m.id + (m.ran ? ":ran " : ":recorded ");
  return out;
}

std::int64_t ledgerRows(rapport::Database& db) {
  return db.query("SELECT COUNT(*) AS n FROM schema_migrations").front().i64("n");
}

}  // namespace

class MigratorTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MigratorTest);
  CPPUNIT_TEST(appliesInOrderAndRecordsTheLedger);
  CPPUNIT_TEST(secondApplyIsANoOp);
  CPPUNIT_TEST(runsTheDialectsOwnSql);
  CPPUNIT_TEST(failingMigrationRollsBackAndIsNamed);
  CPPUNIT_TEST(changedMigrationIsReportedNotRerun);
  CPPUNIT_TEST(concurrentInstancesApplyEachMigrationOnce);
  CPPUNIT_TEST(squashRunsOnAFreshDatabase);
  CPPUNIT_TEST(squashIsRecordedNotRunWhereItsReplacedIdsAreApplied);
  CPPUNIT_TEST(squashIsRefusedWhereOnlySomeReplacedIdsAreApplied);
  CPPUNIT_TEST(replacedIdStillPresentIsRefusedBeforeAnythingRuns);
  CPPUNIT_TEST(replacesCountsOnlyTheSameOwner);
  CPPUNIT_TEST(squashOverAnOlderHistoryIsRefused);
  CPPUNIT_TEST_SUITE_END();

 public:
  void appliesInOrderAndRecordsTheLedger() {
    auto db = openDatabase();
    Migrator migrator(*db);
    const auto applied = migrator.apply(contactSets());
    CPPUNIT_ASSERT_EQUAL(std::string("host/0001_people host/0002_notes contacts/0001_contacts "),
                         names(applied));
    CPPUNIT_ASSERT_EQUAL(names(applied), names(migrator.applied()));
    CPPUNIT_ASSERT_EQUAL(std::string("semi;colon"),
                         db->query("SELECT body FROM notes").front().str("body"));
    const auto row = db->query(
                           "SELECT checksum, applied_at FROM schema_migrations WHERE owner = ? "
                           "AND id = ?",
                           {"host", "0001_people"})
                         .front();
    CPPUNIT_ASSERT_EQUAL(rapport::sha256Hex(contactSets()[0].migrations[1].sqlite),
                         row.str("checksum"));
    CPPUNIT_ASSERT(row.i64("applied_at") > 1600000000000000);
    CPPUNIT_ASSERT(migrator.warnings().empty());
  }

  void secondApplyIsANoOp() {
    auto db = openDatabase();
    Migrator(*db).apply(contactSets());
    Migrator again(*db);
    CPPUNIT_ASSERT(again.apply(contactSets()).empty());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, ledgerRows(*db));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, db->query("SELECT id FROM notes").size());
    CPPUNIT_ASSERT(again.warnings().empty());
  }

  // Multi-statement bodies the splitter must keep whole: an SQLite trigger,
  // a PostgreSQL function in a $$ body.
  void runsTheDialectsOwnSql() {
    auto db = openDatabase();
    Migration migration{
        "0001_counts",
        "CREATE TABLE items (id BIGINT PRIMARY KEY);\n"
        "CREATE TABLE counts (n BIGINT NOT NULL);\nINSERT INTO counts (n) VALUES (0);\n"
        "CREATE TRIGGER items_count AFTER INSERT ON items BEGIN\n"
        "  UPDATE counts SET n = n + 1;\nEND;\n",
        "CREATE TABLE items (id BIGINT PRIMARY KEY);\n"
        "CREATE TABLE counts (n BIGINT NOT NULL);\nINSERT INTO counts (n) VALUES (0);\n"
        "CREATE FUNCTION count_item() RETURNS trigger AS $$\nBEGIN\n"
        "  UPDATE counts SET n = n + 1;\n  RETURN NEW;\nEND;\n$$ LANGUAGE plpgsql;\n"
        "CREATE TRIGGER items_count AFTER INSERT ON items FOR EACH ROW "
        "EXECUTE FUNCTION count_item();\n"};
    Migrator(*db).apply({{"host", {migration}}});
    db->exec("INSERT INTO items (id) VALUES (1), (2)");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, db->query("SELECT n FROM counts").front().i64("n"));
  }

  void failingMigrationRollsBackAndIsNamed() {
    auto db = openDatabase();
    const std::vector<MigrationSet> broken = {
        {"host", {portable("0001_people", "CREATE TABLE people (id TEXT PRIMARY KEY);")}},
        {"crm",
         {portable("0001_deals",
                   "CREATE TABLE deals (id TEXT PRIMARY KEY);\n"
                   "INSERT INTO deals (id) VALUES ('d1');\n"
                   "INSERT INTO nowhere (id) VALUES ('x');\n")}}};
    try {
      Migrator(*db).apply(broken);
      CPPUNIT_FAIL("expected the migration to fail");
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      CPPUNIT_ASSERT_MESSAGE(message, message.starts_with("migration crm/0001_deals failed: "));
      CPPUNIT_ASSERT_MESSAGE(message, message.find("nowhere") != std::string::npos);
    }
    // The first migration stays; the failed one left nothing behind.
    CPPUNIT_ASSERT_EQUAL(std::string("host/0001_people "), names(Migrator(*db).applied()));
    CPPUNIT_ASSERT_THROW(db->query("SELECT id FROM deals"), rapport::DbError);
    // Fixed, it applies.
    const std::vector<MigrationSet> fixed = {
        {"crm", {portable("0001_deals", "CREATE TABLE deals (id TEXT PRIMARY KEY);")}}};
    CPPUNIT_ASSERT_EQUAL(std::string("crm/0001_deals "), names(Migrator(*db).apply(fixed)));
  }

  void changedMigrationIsReportedNotRerun() {
    auto db = openDatabase();
    Migrator(*db).apply({{"host", {portable("0001_t", "CREATE TABLE t (x BIGINT);")}}});
    Migrator migrator(*db);
    const auto applied =
        migrator.apply({{"host", {portable("0001_t", "CREATE TABLE t (x BIGINT, y TEXT);")}}});
    CPPUNIT_ASSERT(applied.empty());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, migrator.warnings().size());
    CPPUNIT_ASSERT(migrator.warnings()[0].find("host/0001_t") != std::string::npos);
  }

  // Two instances (two pools) starting at once on the same database.
  void concurrentInstancesApplyEachMigrationOnce() {
    const auto options = freshOptions();
    auto first = openDatabase(options);
    auto second = openDatabase(options);
    std::vector<MigrationSet> sets = contactSets();
    for (int i = 3; i <= 8; ++i) {
      const std::string table = "extra" + std::to_string(i);
      sets[0].migrations.push_back(
          portable("000" + std::to_string(i) + "_" + table,
                   "CREATE TABLE " + table + " (id BIGINT);INSERT INTO notes (id, body) VALUES ('" +
                       table + "', 'x');"));
    }
    std::latch start(2);
    std::vector<AppliedMigration> appliedByFirst, appliedBySecond;
    std::string errors;
    std::mutex mutex;
    auto run = [&](rapport::host::SqlDatabase& db, std::vector<AppliedMigration>& out) {
      start.arrive_and_wait();
      try {
        out = Migrator(db).apply(sets);
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        errors += e.what();
      }
    };
    std::thread a(run, std::ref(*first), std::ref(appliedByFirst));
    std::thread b(run, std::ref(*second), std::ref(appliedBySecond));
    a.join();
    b.join();
    CPPUNIT_ASSERT_EQUAL(std::string(), errors);
    CPPUNIT_ASSERT_EQUAL(std::size_t{9}, appliedByFirst.size() + appliedBySecond.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{9}, ledgerRows(*first));
    CPPUNIT_ASSERT_EQUAL(std::size_t{7}, first->query("SELECT id FROM notes").size());
  }

  void squashRunsOnAFreshDatabase() {
    auto db = openDatabase();
    const auto applied = Migrator(*db).apply({{"crm", squashed()}});
    CPPUNIT_ASSERT_EQUAL(std::string("0003_t:ran 0004_t_z:ran "), ranFlags(applied));
    db->exec("INSERT INTO t (x, y, z) VALUES (1, 'a', 'b')");
    CPPUNIT_ASSERT_EQUAL(std::string("0003_t 0004_t_z "), ledgerIds(*db, "crm"));
  }

  void squashIsRecordedNotRunWhereItsReplacedIdsAreApplied() {
    auto db = openDatabase();
    Migrator(*db).apply({{"crm", history()}});
    db->exec("INSERT INTO t (x, y) VALUES (1, 'kept')");
    Migrator migrator(*db);
    const auto applied = migrator.apply({{"crm", squashed()}});
    // Run, 0003's CREATE TABLE would have failed: t exists.
    CPPUNIT_ASSERT_EQUAL(std::string("0003_t:recorded 0004_t_z:ran "), ranFlags(applied));
    CPPUNIT_ASSERT_EQUAL(std::string("0001_t 0002_t_y 0003_t 0004_t_z "), ledgerIds(*db, "crm"));
    CPPUNIT_ASSERT_EQUAL(std::string("kept"), db->query("SELECT y FROM t").front().str("y"));
    CPPUNIT_ASSERT(migrator.warnings().empty());
    // Recorded with its own checksum: the next start is a no-op without warnings.
    Migrator again(*db);
    CPPUNIT_ASSERT(again.apply({{"crm", squashed()}}).empty());
    CPPUNIT_ASSERT(again.warnings().empty());
  }

  // A database between two releases: the squash cannot know what it lacks.
  void squashIsRefusedWhereOnlySomeReplacedIdsAreApplied() {
    auto db = openDatabase();
    Migrator(*db).apply({{"crm", {history()[0]}}});
    try {
      Migrator(*db).apply({{"crm", squashed()}});
      CPPUNIT_FAIL("expected the partial history to be refused");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(
          std::string("migration crm/0003_t replaces migrations of which this database has only "
                      "some (missing: 0002_t_y): upgrade through the release that still ships "
                      "them first"),
          std::string(e.what()));
    }
    CPPUNIT_ASSERT_EQUAL(std::string("0001_t "), ledgerIds(*db, "crm"));
  }

  void replacedIdStillPresentIsRefusedBeforeAnythingRuns() {
    auto db = openDatabase();
    std::vector<Migration> both = squashed();
    both.push_back(history()[1]);
    try {
      Migrator(*db).apply(
          {{"host", {portable("0001_people", "CREATE TABLE people (id TEXT);")}}, {"crm", both}});
      CPPUNIT_FAIL("expected a replaced id still registered to be refused");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("migration crm/0003_t replaces 0002_t_y, which crm still "
                                       "registers: delete the replaced migration"),
                           std::string(e.what()));
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, ledgerRows(*db));
  }

  // Another owner's 0001_t in the ledger is not this module's history.
  void replacesCountsOnlyTheSameOwner() {
    auto db = openDatabase();
    Migrator(*db).apply({{"other",
                          {portable("0001_t", "CREATE TABLE other_t (x BIGINT);"),
                           portable("0002_t_y", "CREATE TABLE other_u (x BIGINT);")}}});
    const auto applied = Migrator(*db).apply({{"crm", squashed()}});
    CPPUNIT_ASSERT_EQUAL(std::string("0003_t:ran 0004_t_z:ran "), ranFlags(applied));
  }

  // A database older than the squash's history (its ids were squashed by an
  // earlier release, whose squash this release squashed again): it has none
  // of the replaced ids, but ids of the module this release does not know.
  // Run, the squash would meet its own tables; refused with the way out.
  void squashOverAnOlderHistoryIsRefused() {
    auto db = openDatabase();
    Migrator(*db).apply({{"crm", {portable("0000_t_old", "CREATE TABLE t (x BIGINT);")}}});
    try {
      Migrator(*db).apply({{"crm", squashed()}});
      CPPUNIT_FAIL("expected the older history to be refused");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(
          std::string("migration crm/0003_t replaces migrations this database does not have, "
                      "and it has migrations of crm this release no longer ships (0000_t_old): "
                      "upgrade through the release that still ships them first"),
          std::string(e.what()));
    }
    CPPUNIT_ASSERT_EQUAL(std::string("0000_t_old "), ledgerIds(*db, "crm"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MigratorTest);
