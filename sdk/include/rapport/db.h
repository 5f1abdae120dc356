// Storage as a module sees it: one query helper over SQLite and PostgreSQL.
//
// SQL uses `?` placeholders on both engines; the host rewrites them for
// PostgreSQL ($1..$n) and binds in order. Statements are prepared once per
// pooled session and reused. Keep DML portable (both engines accept
// RETURNING, ON CONFLICT, LIMIT/OFFSET); where they differ, branch on
// dialect(). DDL lives in per-dialect migration files (see module.h).
//
// Storage conventions shared by every table:
//   - ids are TEXT with the API prefix (rapport::newId);
//   - timestamps are BIGINT microseconds since the Unix epoch, UTC
//     (rapport::nowMicros, rapport::isoTimestamp): exact, sortable, no time
//     zone surprises in either engine;
//   - date-only fields are TEXT "YYYY-MM-DD";
//   - booleans are BOOLEAN on PostgreSQL and INTEGER 0/1 on SQLite; bind a
//     C++ bool and read with Row::flag().
//   - every tenant-owned table has company_id and every query filters on it.
//
// Threading: Database is shared by all threads. A Session or Tx belongs to
// the thread that received it and is only valid inside the callback.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "rapport/export.h"
#include "rapport/json.h"

namespace rapport {

enum class Dialect { SQLite, PostgreSQL };

// A bound parameter or a column value.
class RAPPORT_SDK_API Value {
 public:
  using Variant = std::variant<std::nullptr_t, bool, std::int64_t, double, std::string>;

  Value() : v_(nullptr) {}
  Value(std::nullptr_t) : v_(nullptr) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(long long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  template <typename T>
  Value(const std::optional<T>& o) : v_(nullptr) {
    if (o) *this = Value(*o);
  }

  bool isNull() const { return std::holds_alternative<std::nullptr_t>(v_); }
  const Variant& variant() const { return v_; }
  // Conversions used by Row; they throw std::logic_error on an impossible one.
  std::string asString() const;  // numbers are formatted
  std::int64_t asInt() const;    // strings of digits are parsed, bools are 0/1
  double asDouble() const;
  bool asBool() const;  // integers: non-zero is true
  // Column value as JSON (null, bool, int, double or string).
  Json toJson() const;

 private:
  Variant v_;
};

using Params = std::vector<Value>;

class RAPPORT_SDK_API Row {
 public:
  Row(std::shared_ptr<const std::vector<std::string>> columns, std::vector<Value> values);

  // Access by column name (as written in the SELECT) or position.
  // Name lookups throw std::logic_error for an unknown column.
  const Value& operator[](std::string_view column) const;
  const Value& at(std::size_t index) const { return values_.at(index); }
  std::size_t size() const { return values_.size(); }

  bool isNull(std::string_view column) const { return (*this)[column].isNull(); }
  std::string str(std::string_view column) const;  // NULL reads as ""
  std::optional<std::string> optStr(std::string_view column) const;
  std::int64_t i64(std::string_view column) const;  // NULL throws
  std::optional<std::int64_t> optI64(std::string_view column) const;
  bool flag(std::string_view column) const;  // BOOLEAN or 0/1

  // The column names, in order (as written in the SELECT); shared by the
  // rows of one result.
  const std::shared_ptr<const std::vector<std::string>>& columnNames() const { return columns_; }

 private:
  std::shared_ptr<const std::vector<std::string>> columns_;
  std::vector<Value> values_;
};

struct Result {
  std::vector<Row> rows;
  std::int64_t affected = 0;  // rows changed by INSERT/UPDATE/DELETE

  bool empty() const { return rows.empty(); }
  std::size_t size() const { return rows.size(); }
  const Row& front() const { return rows.front(); }
  auto begin() const { return rows.begin(); }
  auto end() const { return rows.end(); }
};

// Driver failures, classified so modules can turn them into API errors
// (UniqueViolation -> 409). The message is for the log, never for clients.
class RAPPORT_VISIBLE DbError : public std::runtime_error {
 public:
  enum class Kind { UniqueViolation, ForeignKeyViolation, Busy, ConnectionLost, Other };
  DbError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }
  bool isUniqueViolation() const { return kind_ == Kind::UniqueViolation; }

 private:
  Kind kind_;
};

// Anything that runs SQL: a pooled session outside a transaction, or a Tx.
class RAPPORT_VISIBLE Queryable {
 public:
  virtual ~Queryable() = default;
  virtual Dialect dialect() const = 0;
  // Runs one statement and returns its rows (SELECT, or ... RETURNING).
  virtual Result query(std::string_view sql, const Params& params = {}) = 0;
  // Runs one statement and returns the number of affected rows.
  virtual std::int64_t exec(std::string_view sql, const Params& params = {}) = 0;
};

// A write transaction. On SQLite it is BEGIN IMMEDIATE (writers queue instead
// of failing with "database is locked"); on PostgreSQL, READ COMMITTED.
class RAPPORT_VISIBLE Tx : public Queryable {
 public:
  // The tenant company this transaction works for (events are recorded for it).
  virtual const std::string& companyId() const = 0;
  // Records an event in this transaction: it is stored (and fanned out to
  // subscribers such as webhooks) only if the transaction commits. `data` is
  // the record as GET returns it, or {"id": ...} for a deletion.
  virtual void emit(const std::string& type, const Json& data) = 0;
  // Runs `fn` after a successful commit (cache invalidation and the like).
  virtual void afterCommit(std::function<void()> fn) = 0;
};

// The shared database. As a Queryable it runs autocommit statements on a
// pooled session (reads, single writes without events).
class RAPPORT_VISIBLE Database : public Queryable {
 public:
  // Runs `fn` in one transaction for `companyId` (may be empty for work that
  // belongs to no tenant). Commits when `fn` returns, rolls back when it
  // throws (and rethrows). A connection lost before any statement ran is
  // retried once on a fresh session. On PostgreSQL a transaction the server
  // aborted to break a deadlock runs again (up to 3 runs): `fn` may run more
  // than once, so keep its effects in the database (and `tx.emit`) and put
  // anything else in `tx.afterCommit`, which only the committed run keeps.
  // On SQLite writes are committed in batches: `fn` may run on the thread
  // of another writer (under this request's scope), and transaction()
  // returns once the batch's COMMIT stored it, so do not rely on
  // thread-local state inside `fn`; after-commit callbacks run on the
  // caller's thread. A write through the Database (not the Tx) from inside
  // `fn` fails with DbError (Busy) on SQLite: it would wait for itself.
  virtual void transaction(const std::string& companyId, const std::function<void(Tx&)>& fn) = 0;

  // Since 7.1. A read (SELECT) like query(), bounded by the operator's
  // statement deadline (database.query_timeout): past it the statement is
  // stopped and a DbError (Busy) is thrown, which the host answers 503 with
  // Retry-After. For reads whose cost the client chooses (record_query.h's
  // lists: a filter no index serves), so none holds a worker for seconds.
  virtual Result queryBounded(std::string_view sql, const Params& params = {}) = 0;
};

// One migration: the same id in both dialects. Module migrations are usually
// generated from files by rapport_add_module (see RapportSdk.cmake): files
// migrations/sqlite/NNNN_name.sql and migrations/postgresql/NNNN_name.sql.
// A file may hold several statements separated by ";" (the host splits them,
// respecting quotes and $$ bodies). Migrations are applied in id order, once,
// and recorded in the ledger table schema_migrations (module, id).
//
// Squashing: an applied migration is never edited (the ledger keeps its
// checksum), so a module that wants to rewrite its history adds a migration
// whose `replaces` names the earlier ids (of the same module) whose combined
// effect it reproduces, and deletes their files. Give it a new id: it runs in
// id order like any other (after the migrations it builds on). The host
// then, per migration with `replaces`:
//   - none of them in the ledger (a fresh database): runs it;
//   - all of them in the ledger (an upgrade): records it as applied without
//     running it (the database already has its effect);
//   - only some of them: refuses to start, naming the missing ones (the
//     database is between two releases: upgrade through the older one first).
// An id that is both replaced and still registered by the module is refused
// at start-up (the module's mistake). In a migration file, the first line
// "-- replaces: 0001_contacts 0002_contact_counts" (the same ids in both
// dialects' files, or configuration fails) fills it (rapport_add_module).
//
// Constructed by value by modules: a change of its members is an ABI major.
struct Migration {
  Migration() = default;
  Migration(std::string id, std::string sqlite, std::string postgresql,
            std::vector<std::string> replaces = {})
      : id(std::move(id)),
        sqlite(std::move(sqlite)),
        postgresql(std::move(postgresql)),
        replaces(std::move(replaces)) {}

  std::string id;  // "0001_contacts"
  std::string sqlite;
  std::string postgresql;
  // Ids of earlier migrations of the same module this one reproduces (above).
  std::vector<std::string> replaces;
};

}  // namespace rapport
