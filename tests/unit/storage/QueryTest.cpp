// The query helper on the engine under test: value types in and out,
// placeholders, statement reuse, affected rows, error classification.
#include <cppunit/extensions/HelperMacros.h>

#include <cstdint>
#include <limits>

#include "StorageTestSupport.h"

using rapport::DbError;
using rapport::Params;
using rapport::Result;
using rapport::Value;
using namespace rapport::test::storage;

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
const std::string kUnicode = "héllo wörld ✓ 日本語 🎉";

template <typename T>
bool holds(const Value& value) {
  return std::holds_alternative<T>(value.variant());
}

}  // namespace

class QueryTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(QueryTest);
  CPPUNIT_TEST(roundTripsEveryValueType);
  CPPUNIT_TEST(typesExpressionColumns);
  CPPUNIT_TEST(comparesParametersWithTypedColumns);
  CPPUNIT_TEST(optionalFilterWithCast);
  CPPUNIT_TEST(reusesStatementsWithChangingValues);
  CPPUNIT_TEST(reusesStatementsAcrossNullAndValue);
  CPPUNIT_TEST(reportsAffectedRows);
  CPPUNIT_TEST(returningFillsRowsAndAffected);
  CPPUNIT_TEST(classifiesUniqueViolations);
  CPPUNIT_TEST(statementWorksAgainAfterFailing);
  CPPUNIT_TEST(classifiesForeignKeyViolations);
  CPPUNIT_TEST(otherErrorsLeaveTheSessionUsable);
  CPPUNIT_TEST(readsManyRows);
  CPPUNIT_TEST(sqliteReadsColumnsOfAnyDeclaredType);
  CPPUNIT_TEST_SUITE_END();

  std::unique_ptr<rapport::host::SqlDatabase> db_;

 public:
  void setUp() override {
    db_ = openDatabase();
    db_->exec(
        "CREATE TABLE vals (id BIGINT PRIMARY KEY, i BIGINT, b BOOLEAN, d DOUBLE PRECISION, "
        "s TEXT)");
  }
  void tearDown() override { db_.reset(); }

  void insert(std::int64_t id, Value i, Value b, Value d, Value s) {
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{1},
        db_->exec("INSERT INTO vals (id, i, b, d, s) VALUES (?, ?, ?, ?, ?)", {id, i, b, d, s}));
  }

  void roundTripsEveryValueType() {
    insert(1, kMin, true, 0.1, kUnicode);
    insert(2, kMax, false, -1.5e300, "");
    insert(3, nullptr, nullptr, nullptr, nullptr);
    insert(4, std::int64_t{-9007199254740993}, true, 1.0 / 3.0, "it's \"quoted\"");
    const Result result = db_->query("SELECT id, i, b, d, s FROM vals ORDER BY id");
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, result.size());

    const auto& first = result.rows[0];
    CPPUNIT_ASSERT(holds<std::int64_t>(first["i"]));
    CPPUNIT_ASSERT_EQUAL(kMin, first.i64("i"));
    CPPUNIT_ASSERT(holds<bool>(first["b"]));
    CPPUNIT_ASSERT(first.flag("b"));
    CPPUNIT_ASSERT(holds<double>(first["d"]));
    CPPUNIT_ASSERT_EQUAL(0.1, first["d"].asDouble());
    CPPUNIT_ASSERT_EQUAL(kUnicode, first.str("s"));

    const auto& second = result.rows[1];
    CPPUNIT_ASSERT_EQUAL(kMax, second.i64("i"));
    CPPUNIT_ASSERT(!second.flag("b"));
    CPPUNIT_ASSERT_EQUAL(-1.5e300, second["d"].asDouble());
    CPPUNIT_ASSERT(holds<std::string>(second["s"]));  // empty, not NULL
    CPPUNIT_ASSERT_EQUAL(std::string(), second.str("s"));

    const auto& third = result.rows[2];
    for (const char* column : {"i", "b", "d", "s"}) CPPUNIT_ASSERT(third.isNull(column));

    const auto& fourth = result.rows[3];
    CPPUNIT_ASSERT_EQUAL(std::int64_t{-9007199254740993}, fourth.i64("i"));
    CPPUNIT_ASSERT_EQUAL(1.0 / 3.0, fourth["d"].asDouble());
    CPPUNIT_ASSERT_EQUAL(std::string("it's \"quoted\""), fourth.str("s"));
  }

  void typesExpressionColumns() {
    insert(1, 10, true, 1.0, "a");
    insert(2, 32, false, 2.0, "b");
    const auto row = db_->query(
                            "SELECT COUNT(*) AS n, SUM(i) AS total, 1 + 1 AS two, 2.5 AS half, "
                            "'x' AS letter, NULL AS nil, MAX(s) AS top FROM vals")
                         .front();
    CPPUNIT_ASSERT(holds<std::int64_t>(row["n"]));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, row.i64("n"));
    CPPUNIT_ASSERT(holds<std::int64_t>(row["total"]));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{42}, row.i64("total"));
    CPPUNIT_ASSERT(holds<std::int64_t>(row["two"]));
    CPPUNIT_ASSERT(holds<double>(row["half"]));
    CPPUNIT_ASSERT_EQUAL(2.5, row["half"].asDouble());
    CPPUNIT_ASSERT_EQUAL(std::string("x"), row.str("letter"));
    CPPUNIT_ASSERT(row.isNull("nil"));
    CPPUNIT_ASSERT_EQUAL(std::string("b"), row.str("top"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{7}, row.size());
  }

  void comparesParametersWithTypedColumns() {
    for (std::int64_t id = 1; id <= 5; ++id) insert(id, id * 100, id % 2 == 0, id * 0.5, "s");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3},
                         db_->query("SELECT id FROM vals WHERE i = ?", {300}).front().i64("id"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{2},
                         db_->query("SELECT id FROM vals WHERE b = ?", {true}).size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{3},
                         db_->query("SELECT id FROM vals WHERE b = ?", {false}).size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{2},
                         db_->query("SELECT id FROM vals WHERE d > ?", {1.6}).size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{5},
                         db_->query("SELECT id FROM vals WHERE s = ?", {"s"}).size());
    const Result page = db_->query("SELECT id FROM vals ORDER BY id LIMIT ? OFFSET ?", {2, 1});
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, page.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, page.rows[0].i64("id"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, page.rows[1].i64("id"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1},
                         db_->exec("UPDATE vals SET i = ?, b = ?, s = ? WHERE id = ?",
                                   {nullptr, nullptr, nullptr, 5}));
    CPPUNIT_ASSERT(db_->query("SELECT i FROM vals WHERE id = ?", {5}).front().isNull("i"));
  }

  void optionalFilterWithCast() {
    insert(1, 1, true, 1.0, "a");
    insert(2, 2, true, 1.0, "b");
    // PostgreSQL cannot infer the type of a parameter only compared with IS
    // NULL: the SQL names it.
    const std::string sql = "SELECT id FROM vals WHERE (CAST(? AS TEXT) IS NULL OR s = ?)";
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, db_->query(sql, {nullptr, nullptr}).size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, db_->query(sql, {"b", "b"}).size());
  }

  void reusesStatementsWithChangingValues() {
    for (std::int64_t id = 1; id <= 40; ++id) {
      insert(id, id * 7, id % 3 == 0, id / 4.0, "row " + std::to_string(id));
    }
    for (std::int64_t id = 1; id <= 40; ++id) {
      const auto row = db_->query("SELECT i, b, d, s FROM vals WHERE id = ?", {id}).front();
      CPPUNIT_ASSERT_EQUAL(id * 7, row.i64("i"));
      CPPUNIT_ASSERT_EQUAL(id % 3 == 0, row.flag("b"));
      CPPUNIT_ASSERT_EQUAL(id / 4.0, row["d"].asDouble());
      CPPUNIT_ASSERT_EQUAL("row " + std::to_string(id), row.str("s"));
    }
    // The same text bound with a string where it had an integer.
    CPPUNIT_ASSERT_EQUAL(std::size_t{1},
                         db_->query("SELECT i FROM vals WHERE s = ?", {"row 3"}).size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0},
                         db_->query("SELECT i FROM vals WHERE s = ?", {"row 99"}).size());
  }

  void reusesStatementsAcrossNullAndValue() {
    for (std::int64_t id = 1; id <= 20; ++id) {
      if (id % 2 == 0) {
        insert(id, nullptr, nullptr, nullptr, nullptr);
      } else {
        insert(id, id, true, 1.5, "v");
      }
    }
    const Result rows = db_->query("SELECT id, i, b, d, s FROM vals ORDER BY id");
    for (const auto& row : rows) {
      const bool null = row.i64("id") % 2 == 0;
      for (const char* column : {"i", "b", "d", "s"}) {
        CPPUNIT_ASSERT_EQUAL(null, row.isNull(column));
      }
      if (!null) CPPUNIT_ASSERT_EQUAL(row.i64("id"), row.i64("i"));
    }
  }

  void reportsAffectedRows() {
    for (std::int64_t id = 1; id <= 5; ++id) insert(id, id, false, 0.0, "x");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3},
                         db_->exec("UPDATE vals SET s = ? WHERE id <= ?", {"y", 3}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         db_->exec("UPDATE vals SET s = ? WHERE id > ?", {"y", 100}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, db_->exec("CREATE TABLE other (x BIGINT)"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, db_->query("SELECT * FROM vals").affected);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, db_->exec("DELETE FROM vals WHERE id > ?", {3}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         db_->exec("INSERT INTO vals (id) VALUES (?) ON CONFLICT DO NOTHING", {1}));
  }

  void returningFillsRowsAndAffected() {
    const Result inserted =
        db_->query("INSERT INTO vals (id, i, s) VALUES (?, ?, ?), (?, ?, ?) RETURNING id, s",
                   {1, 10, "a", 2, 20, "b"});
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, inserted.affected);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, inserted.size());
    CPPUNIT_ASSERT_EQUAL(std::string("b"), inserted.rows[1].str("s"));
    const Result updated = db_->query("UPDATE vals SET i = i + 1 WHERE id = ? RETURNING i", {2});
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, updated.affected);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{21}, updated.front().i64("i"));
  }

  void classifiesUniqueViolations() {
    insert(1, 1, true, 1.0, "a");
    const auto kind = kindOf([&] { insert(1, 2, true, 1.0, "b"); });
    CPPUNIT_ASSERT(kind == DbError::Kind::UniqueViolation);
    db_->exec("CREATE UNIQUE INDEX vals_s ON vals (s)");
    try {
      insert(2, 2, true, 1.0, "a");
      CPPUNIT_FAIL("expected a unique violation");
    } catch (const DbError& e) {
      CPPUNIT_ASSERT(e.isUniqueViolation());
      CPPUNIT_ASSERT(std::string(e.what()).size() > 10);  // the driver's text, for the log
    }
  }

  // The statement succeeded, failed, and must run again (a cached statement
  // is rebuilt after a failure).
  void statementWorksAgainAfterFailing() {
    for (int round = 0; round < 3; ++round) {
      const std::int64_t id = 10 + round;
      insert(id, round, true, 1.0, "x");
      CPPUNIT_ASSERT(kindOf([&] { insert(id, round, true, 1.0, "x"); }) ==
                     DbError::Kind::UniqueViolation);
    }
    insert(99, 1, true, 1.0, "x");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{4},
                         db_->query("SELECT COUNT(*) AS n FROM vals").front().i64("n"));
  }

  void classifiesForeignKeyViolations() {
    db_->exec("CREATE TABLE parent (id BIGINT PRIMARY KEY)");
    db_->exec("CREATE TABLE child (id BIGINT PRIMARY KEY, parent_id BIGINT REFERENCES parent(id))");
    db_->exec("INSERT INTO parent (id) VALUES (?)", {1});
    db_->exec("INSERT INTO child (id, parent_id) VALUES (?, ?)", {1, 1});
    const auto kind = kindOf([&] {
      db_->exec("INSERT INTO child (id, parent_id) VALUES (?, ?)", {2, 7});
    });
    CPPUNIT_ASSERT(kind == DbError::Kind::ForeignKeyViolation);
  }

  void otherErrorsLeaveTheSessionUsable() {
    CPPUNIT_ASSERT(kindOf([&] { db_->query("SELECT nope FROM vals"); }) == DbError::Kind::Other);
    CPPUNIT_ASSERT(kindOf([&] { db_->query("SELEC 1"); }) == DbError::Kind::Other);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, db_->query("SELECT 1 AS one").front().i64("one"));
  }

  void readsManyRows() {
    db_->transaction("", [](rapport::Tx& tx) {
      for (std::int64_t id = 0; id < 2000; ++id) {
        tx.exec("INSERT INTO vals (id, i, s) VALUES (?, ?, ?)", {id, id * id, std::to_string(id)});
      }
    });
    const Result all = db_->query("SELECT id, i, s FROM vals ORDER BY id");
    CPPUNIT_ASSERT_EQUAL(std::size_t{2000}, all.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1999 * 1999}, all.rows[1999].i64("i"));
    CPPUNIT_ASSERT_EQUAL(std::string("1234"), all.rows[1234].str("s"));
  }

  // A Poco 1.11 limitation: on SQLite, result columns must have a declared
  // type Poco knows. The error says so instead of a bare "Not found".
  // SQLite reads each value by its storage class, whatever the column's
  // declared type (Poco's connector refused types such as JSON).
  void sqliteReadsColumnsOfAnyDeclaredType() {
    if (onPostgres()) return;
    db_->exec("CREATE TABLE docs (body JSON, n NUMBER, at DATETIME)");
    db_->exec("INSERT INTO docs (body, n, at) VALUES (?, ?, ?)", {"{}", 42, nullptr});
    const Result result = db_->query("SELECT body, n, at FROM docs");
    CPPUNIT_ASSERT_EQUAL(std::string("{}"), result.front().str("body"));
    CPPUNIT_ASSERT(holds<std::int64_t>(result.front()["n"]));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{42}, result.front().i64("n"));
    CPPUNIT_ASSERT(result.front().isNull("at"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryTest);
