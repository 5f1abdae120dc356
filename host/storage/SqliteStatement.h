// A PreparedStatement on SQLite, through the SQLite C API on the session's
// handle: compiled once (sqlite3_prepare_v3, SQLITE_PREPARE_PERSISTENT), then
// reset, bound and stepped on every execution.
//
// Why not Poco: Poco 1.11's SQLite Statement resets itself before each
// re-execution and compiles its SQL again (sqlite3_prepare_v2 in
// SQLiteStatementImpl::compileImpl), so a "reused" Poco statement costs a
// parse per request; its column types also come from declarations only.
//
// Values: each column by its storage class (INTEGER, REAL, TEXT/BLOB as
// text, NULL), except a column declared BOOLEAN/BOOL, read as a bool. The
// statement is reset after every execution, so no read transaction stays
// open between requests (WAL checkpoints are never held back by it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "storage/PreparedStatement.h"

struct sqlite3;
struct sqlite3_stmt;

namespace rapport::host {

class SqliteStatement final : public PreparedStatement {
 public:
  // Compiles `sql` (one statement) on `db`. Throws DbError when SQLite
  // refuses it.
  SqliteStatement(sqlite3* db, std::string sql);
  ~SqliteStatement() override;

  Result execute(const Params& params) override;
  // Reset after a failure, a SQLite statement runs again like a new one.
  bool reusableAfterFailure() const override { return true; }

 private:
  using Columns = std::shared_ptr<const std::vector<std::string>>;

  void bind(const Params& params);
  std::vector<Row> stepAll();
  const Columns& columns();
  Value read(int column) const;
  [[noreturn]] void fail(int code) const;

  sqlite3* db_;
  std::string sql_;
  sqlite3_stmt* stmt_ = nullptr;
  // The column names and BOOLEAN declarations, learnt at the first row and
  // again after SQLite recompiled the statement (a schema change).
  Columns columns_;
  std::vector<bool> booleans_;
  int describedAtReprepare_ = -1;
};

}  // namespace rapport::host
