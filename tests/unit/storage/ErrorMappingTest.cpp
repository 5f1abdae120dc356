// Classification of driver messages, and what never reaches a message.
#include <cppunit/extensions/HelperMacros.h>

#include "storage/ErrorMapping.h"

using rapport::DbError;
using rapport::host::classifyDriverMessage;
using rapport::host::isTransactionConflict;
using rapport::host::redactSecrets;

class ErrorMappingTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ErrorMappingTest);
  CPPUNIT_TEST(classifiesSqliteMessages);
  CPPUNIT_TEST(classifiesPostgresMessages);
  CPPUNIT_TEST(lockTimeoutIsBusyButNoConflict);
  CPPUNIT_TEST(redactsPasswords);
  CPPUNIT_TEST_SUITE_END();

 public:
  void classifiesSqliteMessages() {
    CPPUNIT_ASSERT(classifyDriverMessage("Constraint violation: UNIQUE constraint failed: t.k") ==
                   DbError::Kind::UniqueViolation);
    CPPUNIT_ASSERT(classifyDriverMessage("FOREIGN KEY constraint failed") ==
                   DbError::Kind::ForeignKeyViolation);
    CPPUNIT_ASSERT(classifyDriverMessage("Database locked: database is locked") ==
                   DbError::Kind::Busy);
    CPPUNIT_ASSERT(classifyDriverMessage("near \"SELEC\": syntax error") == DbError::Kind::Other);
  }

  void classifiesPostgresMessages() {
    const std::string prefix = "PostgreSQL: [PostgreSQL]: postgresql_stmt_execute error: ERROR: ";
    CPPUNIT_ASSERT(classifyDriverMessage(prefix + "duplicate key value violates unique constraint "
                                                  "\"u_pkey\" Severity: ERROR State: 23505 ") ==
                   DbError::Kind::UniqueViolation);
    CPPUNIT_ASSERT(classifyDriverMessage(prefix + "insert or update on table \"c\" violates "
                                                  "foreign key constraint State: 23503 ") ==
                   DbError::Kind::ForeignKeyViolation);
    CPPUNIT_ASSERT(classifyDriverMessage(prefix + "deadlock detected State: 40P01 Detail") ==
                   DbError::Kind::Busy);
    CPPUNIT_ASSERT(classifyDriverMessage(prefix + "terminating connection due to administrator "
                                                  "command State: 57P01 ") ==
                   DbError::Kind::ConnectionLost);
    CPPUNIT_ASSERT(classifyDriverMessage("postgresql_stmt_execute error: server closed the "
                                         "connection unexpectedly State: N/A") ==
                   DbError::Kind::ConnectionLost);
    CPPUNIT_ASSERT(classifyDriverMessage("no connection to the server") ==
                   DbError::Kind::ConnectionLost);
    CPPUNIT_ASSERT(classifyDriverMessage(prefix + "division by zero State: 22012 ") ==
                   DbError::Kind::Other);
  }

  // database.lock_timeout_ms ran out (SQLSTATE 55P03, lock_not_available):
  // Busy, so the request answers 503 with Retry-After like SQLite's busy
  // timeout. Unlike a deadlock (40P01) or a serialization failure (40001),
  // it is not a conflict Database::transaction runs again: that would only
  // multiply the wait behind a lock that is still held.
  void lockTimeoutIsBusyButNoConflict() {
    const std::string lockTimeout =
        "PostgreSQL: [PostgreSQL]: postgresql_stmt_execute error: ERROR:  canceling statement "
        "due to lock timeout Severity: ERROR State: 55P03 ";
    CPPUNIT_ASSERT(classifyDriverMessage(lockTimeout) == DbError::Kind::Busy);
    CPPUNIT_ASSERT(!isTransactionConflict(DbError(DbError::Kind::Busy, lockTimeout)));
    const std::string nowait =
        "ERROR: could not obtain lock on row in relation \"contacts\" State: 55P03 ";
    CPPUNIT_ASSERT(classifyDriverMessage(nowait) == DbError::Kind::Busy);
    const std::string deadlock = "ERROR: deadlock detected State: 40P01 ";
    CPPUNIT_ASSERT(isTransactionConflict(DbError(DbError::Kind::Busy, deadlock)));
    const std::string serialization =
        "ERROR: could not serialize access due to concurrent update State: 40001 ";
    CPPUNIT_ASSERT(classifyDriverMessage(serialization) == DbError::Kind::Busy);
    CPPUNIT_ASSERT(isTransactionConflict(DbError(DbError::Kind::Busy, serialization)));
  }

  void redactsPasswords() {
    CPPUNIT_ASSERT_EQUAL(std::string("host=h password=*** dbname=d"),
                         redactSecrets("host=h password=hunter2 dbname=d"));
    CPPUNIT_ASSERT_EQUAL(std::string("host='h' password=*** dbname='d'"),
                         redactSecrets("host='h' password='hun ter\\'2' dbname='d'"));
    CPPUNIT_ASSERT_EQUAL(std::string("nothing secret"), redactSecrets("nothing secret"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ErrorMappingTest);
