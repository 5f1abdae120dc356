// Shared pieces of the storage tests: a fresh database on the engine under
// test, and the SQL that differs between engines.
#pragma once

#include <cppunit/TestAssert.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "storage/SqlDatabase.h"
#include "storage/SqlDatabaseImpl.h"

namespace rapport::test::storage {

// Options for a new, empty database of the engine under test.
rapport::host::StorageOptions freshOptions();
// Opens `options` (freshOptions() by default).
std::unique_ptr<rapport::host::SqlDatabase> openDatabase(
    const rapport::host::StorageOptions& options = freshOptions());
// The pool behind a database opened by SqlDatabase::open.
rapport::host::SessionPool& poolOf(rapport::host::SqlDatabase& db);

// Whether the engine under test is PostgreSQL.
bool onPostgres();
// The text for the engine under test.
std::string bySql(const std::string& sqlite, const std::string& postgresql);
// Runs each of `statements` with db.exec (a Database, Tx or Queryable).
template <typename Db>
void execAll(Db& db, const std::vector<std::string>& statements) {
  for (const auto& statement : statements) db.exec(statement);
}

// The kind of the DbError `fn` throws; fails the test when it throws none.
inline rapport::DbError::Kind kindOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const rapport::DbError& e) {
    return e.kind();
  }
  CPPUNIT_FAIL("expected a DbError");
  return rapport::DbError::Kind::Other;
}

}  // namespace rapport::test::storage
