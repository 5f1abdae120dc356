// The host's implementation of rapport::Database over Poco Data, for SQLite
// (the embedded default) and PostgreSQL (production).
//
//   database.url = sqlite:data/rapport.db            (relative to the working dir)
//                = postgresql://user:pass@host:port/db
//
// Owns a pool of sessions that waits (up to acquireTimeout) instead of
// throwing when exhausted, discards dead sessions and retries once, and keeps
// prepared statements per session, keyed by SQL text. SQLite sessions use
// WAL, synchronous=FULL (NORMAL when database.sqlite_synchronous says so),
// foreign_keys=ON and a busy timeout; write
// transactions are BEGIN IMMEDIATE. PostgreSQL sessions run in UTC with a
// lock_timeout (a lock wait that runs out is DbError::Kind::Busy: 503).
//
// Threading: shared by all threads; each call borrows one session.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "rapport/db.h"

namespace rapport::host {

struct StorageOptions {
  std::string url = "sqlite:data/rapport.db";
  int poolSize = 16;               // sessions at most (database.pool_size)
  int acquireTimeoutMs = 5000;     // wait for a free session, then 503-style error
  int sqliteBusyTimeoutMs = 5000;  // SQLite lock wait
  // SQLite's PRAGMA synchronous: FULL syncs the WAL at every COMMIT, so a
  // stored change survives a power loss too; NORMAL survives a crash of
  // the process only. Writes are committed in batches (GroupCommit.h), so
  // FULL costs one sync per batch, not one per request.
  bool sqliteFullSync = true;
  // PostgreSQL lock wait of each statement (the session's lock_timeout; 0 =
  // wait forever). Migrations wait without limit.
  int lockTimeoutMs = 5000;
  // The deadline of Database::queryBounded reads (database.query_timeout).
  int queryTimeoutMs = 1000;
};

// Called by Tx::emit inside the transaction (set by the event bus).
using EmitHook = std::function<void(Tx& tx, const std::string& type, const Json& data)>;
// Called after the commit of a transaction that emitted, before its
// after-commit callbacks (set by the event log on PostgreSQL:
// events/EventNumbering.h).
using CommittedEventsHook = std::function<void()>;

class SqlDatabase : public rapport::Database {
 public:
  // Opens the pool and checks one connection; throws std::runtime_error with
  // a clear message (never the password) when the URL is bad or unreachable.
  static std::unique_ptr<SqlDatabase> open(const StorageOptions& options);

  virtual void setEmitHook(EmitHook hook) = 0;
  virtual void setCommittedEventsHook(CommittedEventsHook hook) = 0;
  // True when a trivial query succeeds (for /readyz).
  virtual bool ping() = 0;
  // Runs `fn` on one session while holding the cluster-wide migration lock
  // (PostgreSQL advisory lock; SQLite: BEGIN IMMEDIATE serialises writers).
  virtual void withMigrationLock(const std::function<void(Queryable&)>& fn) = 0;
  // The URL with any password masked, for logs.
  virtual std::string describe() const = 0;
};

// Splits a migration file into single statements at top-level ";",
// respecting quotes, comments and $tag$ bodies (PostgreSQL refuses several
// statements in one string). Empty statements are dropped.
std::vector<std::string> splitSqlStatements(const std::string& script);

// Rewrites "?" placeholders to "$1".."$n" outside quotes and comments.
std::string rewritePlaceholders(std::string_view sql);

}  // namespace rapport::host
