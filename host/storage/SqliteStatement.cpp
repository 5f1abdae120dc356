#include "storage/SqliteStatement.h"

#include <sqlite3.h>
#include <strings.h>

#include <type_traits>
#include <variant>

#include "storage/ErrorMapping.h"

namespace rapport::host {
namespace {

bool isBooleanDeclaration(const char* declared) {
  if (declared == nullptr) return false;
  return strcasecmp(declared, "BOOLEAN") == 0 || strcasecmp(declared, "BOOL") == 0;
}

std::string columnText(sqlite3_stmt* stmt, int column) {
  const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, column));
  const int size = sqlite3_column_bytes(stmt, column);
  return bytes == nullptr ? std::string() : std::string(bytes, static_cast<std::size_t>(size));
}

// How often SQLite recompiled the statement by itself (after a schema
// change): the columns may have changed then.
int reprepareCount(sqlite3_stmt* stmt) {
  return sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_REPREPARE, 0);
}

// Whether `tail`, what follows the first statement of a text, holds another
// one (blanks, semicolons and comments compile to nothing).
bool holdsAnotherStatement(sqlite3* db, const char* tail) {
  sqlite3_stmt* next = nullptr;
  if (sqlite3_prepare_v2(db, tail, -1, &next, nullptr) != SQLITE_OK) return true;
  const bool found = next != nullptr;
  sqlite3_finalize(next);
  return found;
}

}  // namespace

SqliteStatement::SqliteStatement(sqlite3* db, std::string sql) : db_(db), sql_(std::move(sql)) {
  const char* tail = nullptr;
  const int code = sqlite3_prepare_v3(db_, sql_.data(), static_cast<int>(sql_.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt_, &tail);
  if (code != SQLITE_OK) fail(code);
  if (stmt_ == nullptr) throw DbError(DbError::Kind::Other, "SQLite: empty statement");
  // The rest would be silently ignored; PostgreSQL refuses it too.
  if (tail != nullptr && *tail != '\0' && holdsAnotherStatement(db_, tail)) {
    sqlite3_finalize(stmt_);
    throw DbError(DbError::Kind::Other, "SQLite: one statement at a time, got: " + sql_);
  }
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

Result SqliteStatement::execute(const Params& params) {
  bind(params);
  const sqlite3_int64 changesBefore = sqlite3_total_changes64(db_);
  Result result;
  result.rows = stepAll();
  // sqlite3_changes() keeps the count of the last data change, even across a
  // later SELECT or DDL: trust it only when this statement changed rows.
  result.affected = sqlite3_total_changes64(db_) != changesBefore ? sqlite3_changes64(db_) : 0;
  return result;
}

void SqliteStatement::bind(const Params& params) {
  if (static_cast<int>(params.size()) != sqlite3_bind_parameter_count(stmt_)) {
    throw DbError(DbError::Kind::Other, "SQLite: " + std::to_string(params.size()) +
                                            " values bound to " +
                                            std::to_string(sqlite3_bind_parameter_count(stmt_)) +
                                            " parameters in: " + sql_);
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    const int code = std::visit(
        [this, index](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::nullptr_t>) {
            return sqlite3_bind_null(stmt_, index);
          } else if constexpr (std::is_same_v<T, bool>) {
            return sqlite3_bind_int(stmt_, index, value ? 1 : 0);
          } else if constexpr (std::is_same_v<T, std::int64_t>) {
            return sqlite3_bind_int64(stmt_, index, value);
          } else if constexpr (std::is_same_v<T, double>) {
            return sqlite3_bind_double(stmt_, index, value);
          } else {
            // The value outlives the execution (the caller's Params).
            return sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_STATIC,
                                       SQLITE_UTF8);
          }
        },
        params[i].variant());
    if (code != SQLITE_OK) fail(code);
  }
}

std::vector<Row> SqliteStatement::stepAll() {
  std::vector<Row> rows;
  for (;;) {
    const int code = sqlite3_step(stmt_);
    if (code == SQLITE_DONE) break;
    if (code != SQLITE_ROW) fail(code);
    const Columns& names = columns();
    std::vector<Value> values;
    values.reserve(names->size());
    for (std::size_t i = 0; i < names->size(); ++i) values.push_back(read(static_cast<int>(i)));
    rows.emplace_back(names, std::move(values));
  }
  // Ends the statement's read (or write) now, and drops the references to the
  // caller's bound strings.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  return rows;
}

const SqliteStatement::Columns& SqliteStatement::columns() {
  const int reprepared = reprepareCount(stmt_);
  if (columns_ && reprepared == describedAtReprepare_) return columns_;
  auto names = std::make_shared<std::vector<std::string>>();
  booleans_.clear();
  const int count = sqlite3_column_count(stmt_);
  for (int i = 0; i < count; ++i) {
    const char* name = sqlite3_column_name(stmt_, i);
    names->emplace_back(name == nullptr ? "" : name);
    booleans_.push_back(isBooleanDeclaration(sqlite3_column_decltype(stmt_, i)));
  }
  columns_ = std::move(names);
  describedAtReprepare_ = reprepared;
  return columns_;
}

Value SqliteStatement::read(int column) const {
  switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_INTEGER: {
      const std::int64_t value = sqlite3_column_int64(stmt_, column);
      return booleans_[static_cast<std::size_t>(column)] ? Value(value != 0) : Value(value);
    }
    case SQLITE_FLOAT:
      return Value(sqlite3_column_double(stmt_, column));
    case SQLITE_NULL:
      return Value();
    default:
      return Value(columnText(stmt_, column));
  }
}

// The message of the failed call (sqlite3_errmsg, read before the reset
// replaces it), classified like every driver message; the statement is reset
// so it can run again.
void SqliteStatement::fail(int code) const {
  std::string message = "SQLite: ";
  message += db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  throw DbError(classifyDriverMessage(message), message);
}

}  // namespace rapport::host
