#include "storage/Connection.h"

#include <Poco/Data/PostgreSQL/SessionImpl.h>
#include <Poco/Data/SQLite/Utility.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "storage/ErrorMapping.h"
#include "storage/PostgresStatement.h"
#include "storage/SqliteLibrary.h"
#include "storage/SqliteStatement.h"

namespace rapport::host {
namespace {

constexpr std::size_t kStatementsPerSession = 256;

pg_conn* postgresHandle(Poco::Data::Session& session) {
  auto* impl = dynamic_cast<Poco::Data::PostgreSQL::SessionImpl*>(session.impl());
  return impl == nullptr ? nullptr : static_cast<PGconn*>(impl->handle());
}

// libpq prints server notices ("relation already exists, skipping") to
// stderr; they are informational and would only clutter the log.
void ignoreNotice(void* /*arg*/, const char* /*message*/) {}

std::string cacheKey(std::string_view sql, std::string_view signature) {
  std::string key;
  key.reserve(sql.size() + signature.size() + 1);
  key.append(sql).append(1, '\x1f').append(signature);
  return key;
}

}  // namespace

Connection::Connection(const DatabaseUrl& url, const StorageOptions& options)
    : dialect_(url.dialect), cache_(kStatementsPerSession) {
  try {
    if (dialect_ == Dialect::SQLite) {
      setUpSqlite(url, options);
    } else {
      session_ = std::make_unique<Poco::Data::Session>(url.connector, url.connectionString);
      postgres_ = postgresHandle(*session_);
      setUpPostgres(options.lockTimeoutMs);
    }
  } catch (...) {
    const DbError error = currentDbError();
    const auto kind =
        dialect_ == Dialect::PostgreSQL ? DbError::Kind::ConnectionLost : error.kind();
    throw DbError(kind, "cannot open " + url.description + ": " + error.what());
  }
}

Connection::~Connection() {
  const bool lost = postgres_ != nullptr && PQstatus(postgres_) != CONNECTION_OK;
  retired_.clear();
  cache_.clear();
  session_.reset();
  // Poco only closes a connection libpq still reports as OK: one the server
  // dropped would leak its PGconn.
  if (lost) PQfinish(postgres_);
}

void Connection::setUpSqlite(const DatabaseUrl& url, const StorageOptions& options) {
  configureSqliteLibrary();
  // Poco's own busy timeout is in whole seconds (60 by default): round it up
  // here, the PRAGMA below sets the exact value.
  const auto seconds = static_cast<std::size_t>((options.sqliteBusyTimeoutMs + 999) / 1000);
  session_ = std::make_unique<Poco::Data::Session>(url.connector, url.connectionString, seconds);
  sqlite_ = Poco::Data::SQLite::Utility::dbHandle(*session_);
  // The busy timeout first: switching to WAL takes a lock another session
  // may hold. PRAGMAs are per connection.
  runSetup("PRAGMA busy_timeout = " + std::to_string(options.sqliteBusyTimeoutMs));
  switchToWal(options.sqliteBusyTimeoutMs);
  runSetup(options.sqliteFullSync ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
  runSetup("PRAGMA foreign_keys = ON");
  // Statement and savepoint journals in memory: each member of a write batch
  // runs in a savepoint (GroupCommit.h), whose journal keeps the original of
  // every page the member changes. In a temporary file that was two write()
  // calls per page, about 20 pages per contact create; in memory it is a
  // copy. Sorts without an index use memory too (a list of 100k contacts
  // sorted by a column without an index: about 10 MB, for the request).
  runSetup("PRAGMA temp_store = MEMORY");
}

void Connection::switchToWal(int busyTimeoutMs) {
  // Two processes opening a fresh database at once can both hold a shared
  // lock while asking for the exclusive one the switch needs; SQLite then
  // answers "database is locked" at once, without calling the busy handler
  // (deadlock avoidance). So the wait is ours, bounded by the same timeout.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busyTimeoutMs);
  for (;;) {
    try {
      runSetup("PRAGMA journal_mode = WAL");
      return;
    } catch (...) {
      const DbError error = currentDbError();
      if (error.kind() != DbError::Kind::Busy || std::chrono::steady_clock::now() >= deadline) {
        throw error;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Connection::setUpPostgres(int lockTimeoutMs) {
  PQsetNoticeProcessor(postgres_, ignoreNotice, nullptr);
  // Timestamps must not shift with the server's zone.
  runSetup("SET TIME ZONE 'UTC'");
  // A statement waiting for a lock (a row another transaction holds, a table
  // someone locked by hand) gives up after the timeout with SQLSTATE 55P03,
  // which is Busy (503 with Retry-After), instead of holding the request,
  // its worker and its pooled session for as long as the lock stays.
  lockTimeoutMs_ = lockTimeoutMs;
  runSetup("SET lock_timeout = " + std::to_string(lockTimeoutMs_));
}

void Connection::waitForLocksWithoutLimit(bool unlimited) {
  if (dialect_ != Dialect::PostgreSQL) return;
  run("SET lock_timeout = " + std::to_string(unlimited ? 0 : lockTimeoutMs_), {}, Caching::OneShot);
}

void Connection::runSetup(const std::string& sql) {
  Poco::Data::Statement statement(*session_);
  statement << sql;
  statement.execute();
}

std::unique_ptr<PreparedStatement> Connection::prepare(std::string_view sql,
                                                       std::string_view signature) {
  if (dialect_ == Dialect::SQLite)
    return std::make_unique<SqliteStatement>(sqlite_, std::string(sql));
  return std::make_unique<PostgresStatement>(*session_, rewritePlaceholders(sql), signature);
}

Result Connection::run(std::string_view sql, const Params& params, Caching caching) {
  // A bounded read left its statement_timeout on the session: lifted before
  // anything else runs, outside a transaction (begin() comes here first).
  if (statementTimeoutMs_ != 0 && !inTransaction()) setStatementTimeout(0);
  return runStatement(sql, params, caching);
}

namespace {

// SQLite's progress handler: a non-zero answer interrupts the statement
// ("interrupted", classified Busy by ErrorMapping).
int pastDeadline(void* deadline) {
  return std::chrono::steady_clock::now() >=
                 *static_cast<std::chrono::steady_clock::time_point*>(deadline)
             ? 1
             : 0;
}

// Virtual machine instructions between two checks of the clock: about a
// tenth of a millisecond of work, so the check costs nothing measurable.
constexpr int kProgressStep = 10000;

}  // namespace

Result Connection::runBounded(std::string_view sql, const Params& params, int timeoutMs) {
  if (timeoutMs <= 0) return run(sql, params);
  if (dialect_ == Dialect::PostgreSQL) {
    if (statementTimeoutMs_ != timeoutMs) setStatementTimeout(timeoutMs);
    return runStatement(sql, params, Caching::Cached);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  sqlite3_progress_handler(sqlite_, kProgressStep, &pastDeadline, &deadline);
  try {
    Result result = runStatement(sql, params, Caching::Cached);
    sqlite3_progress_handler(sqlite_, 0, nullptr, nullptr);
    return result;
  } catch (...) {
    sqlite3_progress_handler(sqlite_, 0, nullptr, nullptr);
    throw;
  }
}

void Connection::setStatementTimeout(int timeoutMs) {
  runStatement("SET statement_timeout = " + std::to_string(timeoutMs), {}, Caching::OneShot);
  statementTimeoutMs_ = timeoutMs;
}

Result Connection::runStatement(std::string_view sql, const Params& params, Caching caching) {
  if (broken_) throw DbError(DbError::Kind::ConnectionLost, "the database connection was lost");
  const std::string signature = signatureOf(params);
  if (caching == Caching::OneShot) return runOnce(sql, signature, params);
  std::string key = cacheKey(sql, signature);
  if (oneShotKeys_.contains(key)) return runOnce(sql, signature, params);
  return runCached(key, sql, signature, params);
}

Result Connection::runCached(const std::string& key, std::string_view sql,
                             std::string_view signature, const Params& params) {
  PreparedStatement* statement = cache_.find(key);
  if (statement == nullptr) {
    std::unique_ptr<PreparedStatement> prepared;
    try {
      prepared = prepare(sql, signature);
    } catch (...) {
      throw failed(nullptr, std::string());
    }
    statement = prepared.get();
    if (auto evicted = cache_.insert(key, std::move(prepared))) {
      retired_.push_back(std::move(evicted));
    }
  }
  try {
    return statement->execute(params);
  } catch (...) {
    if (statement->reusableAfterFailure()) throw failed(nullptr, std::string());
    throw failed(cache_.remove(key), key);
  }
}

Result Connection::runOnce(std::string_view sql, std::string_view signature, const Params& params) {
  std::unique_ptr<PreparedStatement> statement;
  try {
    statement = prepare(sql, signature);
    return statement->execute(params);
  } catch (...) {
    throw failed(std::move(statement), std::string());
  }
}

// Called inside a catch block: retires the failed statement when it cannot
// run again (Poco leaves it mid-execution), marks the session broken when the
// connection failed, and returns the classified error.
DbError Connection::failed(std::unique_ptr<PreparedStatement> statement, const std::string& key) {
  DbError error = currentDbError();
  if (statement) {
    if (statement->abandonIfUnsafe() && !key.empty()) oneShotKeys_.insert(key);
    retired_.push_back(std::move(statement));
  }
  if (error.kind() == DbError::Kind::ConnectionLost || !alive()) broken_ = true;
  if (!inTransaction()) sweep();
  return error;
}

bool Connection::alive() const {
  return postgres_ == nullptr || PQstatus(postgres_) == CONNECTION_OK;
}

void Connection::begin() {
  run(dialect_ == Dialect::SQLite ? "BEGIN IMMEDIATE" : "BEGIN", {});
}

void Connection::commit() {
  run("COMMIT", {});
  sweep();
}

void Connection::rollback() {
  if (!inTransaction()) return;
  run("ROLLBACK", {});
  sweep();
}

bool Connection::inTransaction() const {
  if (sqlite_ != nullptr) return sqlite3_get_autocommit(sqlite_) == 0;
  if (postgres_ == nullptr || !alive()) return false;
  return PQtransactionStatus(postgres_) != PQTRANS_IDLE;
}

bool Connection::transactionAborted() const {
  return postgres_ != nullptr && alive() && PQtransactionStatus(postgres_) == PQTRANS_INERROR;
}

void Connection::sweep() {
  retired_.clear();
}

}  // namespace rapport::host
