// One pooled database session: a Poco session, its engine setup, its
// prepared statements, and what it knows about its own health.
#pragma once

#include <Poco/Data/Session.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "rapport/db.h"
#include "storage/DatabaseUrl.h"
#include "storage/PreparedStatement.h"
#include "storage/SqlDatabase.h"
#include "storage/StatementCache.h"

struct sqlite3;
struct pg_conn;

namespace rapport::host {

class Connection {
 public:
  // Cached: prepared once per session and reused (the default).
  // OneShot: prepared, run and dropped (migrations, one-off DDL).
  enum class Caching { Cached, OneShot };

  // Connects and sets the session up. Throws DbError (ConnectionLost when the
  // server cannot be reached), never naming the password.
  Connection(const DatabaseUrl& url, const StorageOptions& options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Dialect dialect() const { return dialect_; }

  // Runs one statement ("?" placeholders). Throws DbError.
  Result run(std::string_view sql, const Params& params, Caching caching = Caching::Cached);
  // Runs one autocommit read stopped after `timeoutMs` (Database::queryBounded):
  // past it, DbError Busy (503 with Retry-After). SQLite: a progress handler
  // checks the clock while the statement runs; PostgreSQL: the session's
  // statement_timeout, set for bounded reads and lifted before any other
  // statement outside a transaction (so never inside one, where a rollback
  // would undo the SET).
  Result runBounded(std::string_view sql, const Params& params, int timeoutMs);

  // Transaction control. begin() is BEGIN IMMEDIATE on SQLite: a deferred
  // transaction that reads then writes fails with "database is locked" when
  // another writer got there first; an immediate one queues for the lock.
  void begin();
  void commit();
  // Rolls back if a transaction is open (SQLite may already have ended it).
  void rollback();
  // The driver's view: a transaction (possibly failed) is open.
  bool inTransaction() const;
  // PostgreSQL: the open transaction failed and only accepts ROLLBACK.
  bool transactionAborted() const;

  // A connection-level failure happened: the session must not be reused.
  bool broken() const { return broken_; }
  // Whether the session went back to the pool at least once: such a session
  // may have died while idle, which makes a retry on a fresh one worthwhile.
  bool served() const { return served_; }
  void markServed() { served_ = true; }

  // PostgreSQL: lets this session's statements wait for locks without limit
  // (migrations queue behind each other and behind requests), or restores
  // the configured lock_timeout. No-op on SQLite.
  void waitForLocksWithoutLimit(bool unlimited);

  // Destroys statements retired after failures. Deferred while a transaction
  // is open: on PostgreSQL their DEALLOCATE would fail in an aborted one.
  void sweep();

 private:
  void setUpSqlite(const DatabaseUrl& url, const StorageOptions& options);
  void switchToWal(int busyTimeoutMs);
  void setUpPostgres(int lockTimeoutMs);
  void runSetup(const std::string& sql);
  std::unique_ptr<PreparedStatement> prepare(std::string_view sql, std::string_view signature);
  Result runCached(const std::string& key, std::string_view sql, std::string_view signature,
                   const Params& params);
  Result runOnce(std::string_view sql, std::string_view signature, const Params& params);
  DbError failed(std::unique_ptr<PreparedStatement> statement, const std::string& key);
  bool alive() const;

  Dialect dialect_;
  std::unique_ptr<Poco::Data::Session> session_;
  sqlite3* sqlite_ = nullptr;    // SQLite: the session's handle
  pg_conn* postgres_ = nullptr;  // PostgreSQL: the session's handle
  StatementCache cache_;
  std::vector<std::unique_ptr<PreparedStatement>> retired_;
  // SQL (with signature) that must not be cached any more: see
  // PostgresStatement::abandonIfUnsafe().
  std::unordered_set<std::string> oneShotKeys_;
  int lockTimeoutMs_ = 0;       // PostgreSQL: the session's lock_timeout
  int statementTimeoutMs_ = 0;  // PostgreSQL: the session's statement_timeout (0: none)
  void setStatementTimeout(int timeoutMs);
  Result runStatement(std::string_view sql, const Params& params, Caching caching);
  bool broken_ = false;
  bool served_ = false;
};

}  // namespace rapport::host
