// Database::queryBounded (database.query_timeout_ms, decisions §13 "Cost"):
// a read that runs past the deadline stops with DbError::Kind::Busy (the
// request answers 503 with Retry-After), the session stays usable, and the
// deadline never leaks into other statements: an unbounded read or a
// transaction on the same session afterwards runs as long as it needs.
// SQLite stops the statement from its progress handler, PostgreSQL by the
// session's statement_timeout. A negative deadline is refused at start-up.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "StorageTestSupport.h"

using rapport::DbError;
using rapport::Tx;
using namespace rapport::test::storage;

namespace {

constexpr int kDeadlineMs = 50;

rapport::host::StorageOptions boundedOptions() {
  auto options = freshOptions();
  options.queryTimeoutMs = kDeadlineMs;
  options.poolSize = 1;  // every statement on the one session
  return options;
}

// A read of about a second on either engine.
std::string slowRead() {
  return bySql(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) "
      "SELECT count(*) AS n FROM c",
      "SELECT count(*) AS n FROM pg_sleep(1)");
}

// A read of a few times the deadline, that must finish when unbounded.
std::string readPastTheDeadline() {
  return bySql(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) "
      "SELECT count(*) AS n FROM c",
      "SELECT count(*) AS n FROM pg_sleep(0.2)");
}

}  // namespace

class QueryDeadlineTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(QueryDeadlineTest);
  CPPUNIT_TEST(aBoundedReadPastTheDeadlineIsBusy);
  CPPUNIT_TEST(aBoundedReadWithinTheDeadlineAnswers);
  CPPUNIT_TEST(theDeadlineDoesNotLeakIntoOtherStatements);
  CPPUNIT_TEST(zeroMeansNoDeadline);
  CPPUNIT_TEST(negativeDeadlineIsRefused);
  CPPUNIT_TEST_SUITE_END();

 public:
  void aBoundedReadPastTheDeadlineIsBusy() {
    auto db = openDatabase(boundedOptions());
    CPPUNIT_ASSERT(DbError::Kind::Busy == kindOf([&] { db->queryBounded(slowRead()); }));
    // The session serves the next statement.
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), db->query("SELECT 1 AS one").front().i64("one"));
  }

  void aBoundedReadWithinTheDeadlineAnswers() {
    auto db = openDatabase(boundedOptions());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), db->queryBounded("SELECT 2 AS two").front().i64("two"));
  }

  void theDeadlineDoesNotLeakIntoOtherStatements() {
    auto db = openDatabase(boundedOptions());
    CPPUNIT_ASSERT(DbError::Kind::Busy == kindOf([&] { db->queryBounded(slowRead()); }));
    // Unbounded, on the same (only) session: runs past the deadline and answers.
    CPPUNIT_ASSERT(db->query(readPastTheDeadline()).front().i64("n") > 0);
    db->queryBounded("SELECT 1 AS one");
    db->transaction(
        "", [&](Tx& tx) { CPPUNIT_ASSERT(tx.query(readPastTheDeadline()).front().i64("n") > 0); });
  }

  void zeroMeansNoDeadline() {
    auto options = boundedOptions();
    options.queryTimeoutMs = 0;
    auto db = openDatabase(options);
    CPPUNIT_ASSERT(db->queryBounded(readPastTheDeadline()).front().i64("n") > 0);
  }

  void negativeDeadlineIsRefused() {
    auto options = freshOptions();
    options.queryTimeoutMs = -1;
    try {
      openDatabase(options);
      CPPUNIT_FAIL("a negative database.query_timeout_ms was accepted");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("database.query_timeout_ms must not be negative"),
                           std::string(e.what()));
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryDeadlineTest);
