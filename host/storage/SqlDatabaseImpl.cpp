#include "storage/SqlDatabaseImpl.h"

#include <optional>
#include <utility>

#include "log/Log.h"
#include "metrics/Metrics.h"
#include "storage/ErrorMapping.h"
#include "storage/RequestTransactions.h"
#include "storage/SearchQueue.h"
#include "storage/SqlScanner.h"
#include "storage/SqlTransaction.h"

namespace rapport::host {
namespace {

// The key of the PostgreSQL advisory lock every Rapport instance takes to
// migrate: any fixed 64-bit number (the ASCII bytes of "rapportm").
constexpr const char* kMigrationLockKey = "8241992421273138285";

// Sessions opened with the pool: the first request finds one ready, and a
// wrong URL or password fails at startup rather than on the first request.
constexpr std::size_t kPrewarmedSessions = 2;

// Runs of a transaction that PostgreSQL aborted for a deadlock, at most.
constexpr int kTransactionAttempts = 3;

// SQLite: writes in one COMMIT at most (GroupCommit.h). 64 covers the
// default 32 workers twice over; the first member then waits for at most
// 63 others' work (about 0.1 ms each for a contact create).
constexpr std::size_t kMaxBatchMembers = 64;

// The callback of withMigrationLock runs on one session. Its statements run
// once each (DDL, ledger rows): they are not worth a prepared statement.
class SessionQueryable final : public Queryable {
 public:
  explicit SessionQueryable(Connection& connection) : connection_(connection) {}
  Dialect dialect() const override { return connection_.dialect(); }
  Result query(std::string_view sql, const Params& params = {}) override {
    return connection_.run(sql, params, Connection::Caching::OneShot);
  }
  std::int64_t exec(std::string_view sql, const Params& params = {}) override {
    return query(sql, params).affected;
  }

 private:
  Connection& connection_;
};

// A session that lost its connection after sitting idle in the pool most
// likely died there (server restart, idle timeout) and the statement never
// ran: one retry on a fresh session is worth it.
bool worthRetrying(const DbError& error, const Connection& connection) {
  return error.kind() == DbError::Kind::ConnectionLost && connection.served();
}

// For paths already propagating a failure: a session that cannot roll back
// is closed instead of returned.
void rollbackQuietly(SessionPool::Lease& lease) noexcept {
  try {
    lease->rollback();
  } catch (...) {
    lease.discard();
  }
}

// SQLite: each batch writes the search index of its rows before its COMMIT
// (SearchQueue.h).
GroupCommit::BeforeCommit searchFlush(const DatabaseUrl& url) {
  if (url.dialect != Dialect::SQLite) return {};
  auto queue = std::make_shared<SearchQueue>();
  return [queue](Connection& connection) { queue->flush(connection); };
}

// SQLite: what the migrations queued for the search index (SearchQueue.h),
// indexed in a transaction of its own rather than by the first write. A
// callback that left its own transaction open keeps it (the pool rolls it
// back); what is queued then waits for the next batch.
void flushAfterMigrations(Connection& connection) {
  if (connection.dialect() != Dialect::SQLite || connection.inTransaction()) return;
  connection.begin();
  try {
    SearchQueue().flush(connection);
    connection.commit();
  } catch (...) {
    try {
      connection.rollback();
    } catch (...) {
      // Already failing; withMigrationLock's caller sees the flush's error.
    }
    throw;
  }
}

}  // namespace

SqlDatabaseImpl::SqlDatabaseImpl(DatabaseUrl url, const StorageOptions& options)
    : url_(std::move(url)),
      queryTimeoutMs_(options.queryTimeoutMs),
      pool_([this, options] { return std::make_unique<Connection>(url_, options); },
            static_cast<std::size_t>(options.poolSize),
            std::chrono::milliseconds(options.acquireTimeoutMs)),
      group_([this] { return beginTransaction(); }, kMaxBatchMembers,
             std::chrono::milliseconds(options.sqliteBusyTimeoutMs), searchFlush(url_)) {
  pool_.prewarm(kPrewarmedSessions);
}

Result SqlDatabaseImpl::query(std::string_view sql, const Params& params) {
  // A write through query() ("... RETURNING") is a write like exec().
  return sql::changesData(sql) ? write(sql, params) : autocommit(sql, params);
}

std::int64_t SqlDatabaseImpl::exec(std::string_view sql, const Params& params) {
  return write(sql, params).affected;  // exec is for writes
}

// On SQLite a single write joins the open batch like a transaction (a write
// on another session would wait for the batch's lock); on PostgreSQL it is
// an autocommit statement.
Result SqlDatabaseImpl::write(std::string_view sql, const Params& params) {
  if (url_.dialect != Dialect::SQLite) return autocommit(sql, params);
  Result result;
  group_.run([&](Connection& connection) { result = connection.run(sql, params); });
  return result;
}

Result SqlDatabaseImpl::autocommit(std::string_view sql, const Params& params) {
  return onSession([&](Connection& session) { return session.run(sql, params); });
}

Result SqlDatabaseImpl::queryBounded(std::string_view sql, const Params& params) {
  if (sql::changesData(sql)) return write(sql, params);  // a write is never cut short
  return onSession(
      [&](Connection& session) { return session.runBounded(sql, params, queryTimeoutMs_); });
}

Result SqlDatabaseImpl::onSession(const std::function<Result(Connection&)>& statement) {
  {
    SessionPool::Lease lease = pool_.acquire();
    try {
      return statement(*lease);
    } catch (const DbError& error) {
      if (!worthRetrying(error, *lease)) throw;
    }
  }  // the dead session is closed here
  pool_.discardIdle();
  return statement(*pool_.acquire());
}

void SqlDatabaseImpl::transaction(const std::string& companyId,
                                  const std::function<void(Tx&)>& fn) {
  // PostgreSQL breaks a deadlock (or a serialization failure) by aborting
  // one of the transactions; it rolled back whole, so it runs again, a few
  // times. SQLite has one writer and never needs it.
  // The request's hooks (RequestTransactions.h) run in every attempt: its
  // check before the work of its first transaction, its fence after the
  // work of each.
  const RequestTransactions::Hooks hooks = RequestTransactions::forNextTransaction();
  const std::function<void(Tx&)> work = !hooks.first && !hooks.beforeCommit ? fn : [&](Tx& tx) {
    if (hooks.first) hooks.first(tx);
    fn(tx);
    if (hooks.beforeCommit) hooks.beforeCommit(tx);
  };
  for (int attempt = 1;; ++attempt) {
    try {
      runTransaction(companyId, work);
      return;
    } catch (const DbError& error) {
      if (attempt == kTransactionAttempts || !isTransactionConflict(error)) throw;
      // Worth an operator's eye when frequent: two writers locking the same
      // rows in opposite orders (tests assert this line never appears).
      metrics::transactionRetried();
      log::warn("transaction conflict, running it again",
                {{"attempt", std::to_string(attempt + 1)}, {"error", error.what()}});
    }
  }
}

void SqlDatabaseImpl::runTransaction(const std::string& companyId,
                                     const std::function<void(Tx&)>& fn) {
  if (url_.dialect == Dialect::SQLite) return runGrouped(companyId, fn);
  SessionPool::Lease lease = beginTransaction();
  SqlTransaction tx(*lease, companyId, emitHook());
  try {
    fn(tx);
  } catch (...) {
    rollbackQuietly(lease);
    throw;  // the callback's exception, unchanged
  }
  commit(lease, tx);
  lease.release();  // before the callbacks, which may use the database themselves
  afterEventsCommitted(tx);
  tx.runAfterCommit();
}

// SQLite: the transaction is one member of a write batch (GroupCommit.h);
// its after-commit callbacks run once the batch's COMMIT stored it.
void SqlDatabaseImpl::runGrouped(const std::string& companyId, const std::function<void(Tx&)>& fn) {
  std::optional<SqlTransaction> tx;
  group_.run([&](Connection& connection) {
    tx.emplace(connection, companyId, emitHook());
    fn(*tx);
  });
  afterEventsCommitted(*tx);
  tx->runAfterCommit();
}

// Only BEGIN is retried: once a statement ran, a retry could apply it twice.
SessionPool::Lease SqlDatabaseImpl::beginTransaction() {
  {
    SessionPool::Lease lease = pool_.acquire();
    try {
      lease->begin();
      return lease;
    } catch (const DbError& error) {
      if (!worthRetrying(error, *lease)) throw;
    }
  }
  pool_.discardIdle();
  SessionPool::Lease lease = pool_.acquire();
  lease->begin();
  return lease;
}

void SqlDatabaseImpl::commit(SessionPool::Lease& lease, const SqlTransaction& tx) {
  // PostgreSQL answers COMMIT in a transaction aborted by an error (one the
  // callback caught and ignored) with a silent ROLLBACK: report the error
  // instead of pretending the work was stored.
  if (lease->transactionAborted()) {
    rollbackQuietly(lease);
    const std::string cause = tx.failure() ? tx.failure()->what() : "unknown error";
    throw DbError(tx.failure() ? tx.failure()->kind() : DbError::Kind::Other,
                  "transaction rolled back after an earlier error: " + cause);
  }
  try {
    lease->commit();
  } catch (...) {
    rollbackQuietly(lease);
    throw;
  }
}

void SqlDatabaseImpl::setEmitHook(EmitHook hook) {
  auto shared = std::make_shared<const EmitHook>(std::move(hook));
  std::lock_guard lock(hookMutex_);
  emitHook_ = std::move(shared);
}

void SqlDatabaseImpl::setCommittedEventsHook(CommittedEventsHook hook) {
  auto shared = std::make_shared<const CommittedEventsHook>(std::move(hook));
  std::lock_guard lock(hookMutex_);
  committedEventsHook_ = std::move(shared);
}

void SqlDatabaseImpl::afterEventsCommitted(const SqlTransaction& tx) const {
  if (!tx.emitted()) return;
  std::shared_ptr<const CommittedEventsHook> hook;
  {
    std::lock_guard lock(hookMutex_);
    hook = committedEventsHook_;
  }
  if (hook && *hook) (*hook)();
}

std::shared_ptr<const EmitHook> SqlDatabaseImpl::emitHook() const {
  std::lock_guard lock(hookMutex_);
  return emitHook_;
}

bool SqlDatabaseImpl::ping() {
  try {
    autocommit("SELECT 1", {});
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void SqlDatabaseImpl::withMigrationLock(const std::function<void(Queryable&)>& fn) {
  SessionPool::Lease lease = pool_.acquire();
  try {
    lockForMigrations(*lease);
  } catch (...) {
    lease.discard();  // its lock_timeout may be left unlimited
    throw;
  }
  SessionQueryable session(*lease);
  try {
    fn(session);
    flushAfterMigrations(*lease);
  } catch (...) {
    unlockAfterMigrations(lease);
    throw;
  }
  unlockAfterMigrations(lease);
}

// PostgreSQL: an advisory lock serialises instances migrating at once.
// SQLite needs none: each migration is its own BEGIN IMMEDIATE transaction,
// which queues writers, and re-checks the ledger inside it.
// The session waits for locks without limit meanwhile: an instance that
// starts while another migrates waits for it however long it takes, and DDL
// waits for the requests of running instances rather than failing start-up.
void SqlDatabaseImpl::lockForMigrations(Connection& connection) {
  if (connection.dialect() != Dialect::PostgreSQL) return;
  connection.waitForLocksWithoutLimit(true);
  connection.run(std::string("SELECT pg_advisory_lock(") + kMigrationLockKey + ")", {},
                 Connection::Caching::OneShot);
}

void SqlDatabaseImpl::unlockAfterMigrations(SessionPool::Lease& lease) {
  if (lease->dialect() != Dialect::PostgreSQL) return;
  try {
    lease->rollback();  // the unlock would fail inside an aborted transaction
    lease->run(std::string("SELECT pg_advisory_unlock(") + kMigrationLockKey + ")", {},
               Connection::Caching::OneShot);
    lease->waitForLocksWithoutLimit(false);
  } catch (...) {
    lease.discard();  // closing the session releases its advisory locks too
  }
}

}  // namespace rapport::host
