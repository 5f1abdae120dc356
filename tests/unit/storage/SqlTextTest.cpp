// rewritePlaceholders and splitSqlStatements: pure text, no database.
#include <cppunit/extensions/HelperMacros.h>

#include "storage/SqlDatabase.h"

using rapport::host::rewritePlaceholders;
using rapport::host::splitSqlStatements;
using Statements = std::vector<std::string>;

class SqlTextTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SqlTextTest);
  CPPUNIT_TEST(numbersPlaceholdersInOrder);
  CPPUNIT_TEST(leavesQuotedTextAlone);
  CPPUNIT_TEST(leavesCommentsAlone);
  CPPUNIT_TEST(leavesDollarBodiesAlone);
  CPPUNIT_TEST(splitsAtTopLevelSemicolons);
  CPPUNIT_TEST(keepsSemicolonsInsideQuotesCommentsAndBodies);
  CPPUNIT_TEST(dropsEmptyStatements);
  CPPUNIT_TEST(keepsSqliteTriggerBodiesWhole);
  CPPUNIT_TEST(endsPostgresTriggersAtTheirSemicolon);
  CPPUNIT_TEST_SUITE_END();

 public:
  void numbersPlaceholdersInOrder() {
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)"),
                         rewritePlaceholders("SELECT * FROM t WHERE a = ? AND b IN (?, ?)"));
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), rewritePlaceholders("SELECT 1"));
    CPPUNIT_ASSERT_EQUAL(std::string("LIMIT $1 OFFSET $2"),
                         rewritePlaceholders("LIMIT ? OFFSET ?"));
  }

  void leavesQuotedTextAlone() {
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT '?', 'it''s ?', $1"),
                         rewritePlaceholders("SELECT '?', 'it''s ?', ?"));
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT \"we?rd\"\"?\" FROM t WHERE x = $1"),
                         rewritePlaceholders("SELECT \"we?rd\"\"?\" FROM t WHERE x = ?"));
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT E'a\\'?', $1"),
                         rewritePlaceholders("SELECT E'a\\'?', ?"));
  }

  void leavesCommentsAlone() {
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT $1 -- why?\n, $2 /* what? */ + $3"),
                         rewritePlaceholders("SELECT ? -- why?\n, ? /* what? */ + ?"));
  }

  void leavesDollarBodiesAlone() {
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT $$ ? $$, $tag$ it's ? $tag$, $1"),
                         rewritePlaceholders("SELECT $$ ? $$, $tag$ it's ? $tag$, ?"));
    // "$1" and "a$b" open no body.
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT a$b, $1"), rewritePlaceholders("SELECT a$b, ?"));
  }

  void splitsAtTopLevelSemicolons() {
    CPPUNIT_ASSERT(Statements({"CREATE TABLE a (x INT)", "CREATE INDEX i ON a (x)"}) ==
                   splitSqlStatements("CREATE TABLE a (x INT);\n\nCREATE INDEX i ON a (x);\n"));
    CPPUNIT_ASSERT(Statements({"SELECT 1"}) == splitSqlStatements("SELECT 1"));
  }

  void keepsSemicolonsInsideQuotesCommentsAndBodies() {
    const std::string script =
        "INSERT INTO t VALUES ('a;b', \"c;d\"); -- one; two\n"
        "CREATE FUNCTION f() RETURNS trigger AS $body$ BEGIN x := 1; RETURN NEW; END $body$ "
        "LANGUAGE plpgsql; /* c; */ SELECT 2";
    const Statements expected = {
        "INSERT INTO t VALUES ('a;b', \"c;d\")",
        "-- one; two\nCREATE FUNCTION f() RETURNS trigger AS $body$ BEGIN x := 1; RETURN NEW; "
        "END $body$ LANGUAGE plpgsql",
        "/* c; */ SELECT 2"};
    CPPUNIT_ASSERT(expected == splitSqlStatements(script));
  }

  void dropsEmptyStatements() {
    CPPUNIT_ASSERT(Statements({"SELECT 1", "SELECT 2"}) ==
                   splitSqlStatements(";;SELECT 1;\n;  ;SELECT 2;\n-- the end\n/* really */"));
    CPPUNIT_ASSERT(splitSqlStatements("  \n-- nothing\n").empty());
  }

  void keepsSqliteTriggerBodiesWhole() {
    const std::string trigger =
        "CREATE TRIGGER touch AFTER UPDATE ON t BEGIN UPDATE t SET n = n + 1; "
        "INSERT INTO log VALUES (1); END";
    CPPUNIT_ASSERT(Statements({trigger, "SELECT 1"}) ==
                   splitSqlStatements(trigger + ";\nSELECT 1;"));
  }

  // PostgreSQL triggers have no BEGIN ... END body: each ends at its ";".
  void endsPostgresTriggersAtTheirSemicolon() {
    const std::string first =
        "CREATE TRIGGER a AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION count_t()";
    const std::string second =
        "CREATE TRIGGER b AFTER DELETE ON t FOR EACH ROW EXECUTE FUNCTION count_t()";
    CPPUNIT_ASSERT(Statements({first, second, "SELECT 1"}) ==
                   splitSqlStatements(first + ";\n" + second + ";\nSELECT 1;"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SqlTextTest);
