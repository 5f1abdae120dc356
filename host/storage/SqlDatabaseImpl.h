// rapport::host::SqlDatabase over the session pool. Private to the storage
// layer (and its tests); the rest of the host uses SqlDatabase.h.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "storage/DatabaseUrl.h"
#include "storage/GroupCommit.h"
#include "storage/SessionPool.h"
#include "storage/SqlDatabase.h"

namespace rapport::host {

class SqlTransaction;

class SqlDatabaseImpl final : public SqlDatabase {
 public:
  // Opens the pool and one or two sessions; throws DbError when it cannot.
  SqlDatabaseImpl(DatabaseUrl url, const StorageOptions& options);

  Dialect dialect() const override { return url_.dialect; }
  Result query(std::string_view sql, const Params& params = {}) override;
  Result queryBounded(std::string_view sql, const Params& params = {}) override;
  std::int64_t exec(std::string_view sql, const Params& params = {}) override;
  void transaction(const std::string& companyId, const std::function<void(Tx&)>& fn) override;

  void setEmitHook(EmitHook hook) override;
  void setCommittedEventsHook(CommittedEventsHook hook) override;
  bool ping() override;
  void withMigrationLock(const std::function<void(Queryable&)>& fn) override;
  std::string describe() const override { return url_.description; }

  SessionPool& pool() { return pool_; }
  // SQLite's write batches (tests, diagnostics); unused on PostgreSQL.
  GroupCommit::Stats groupCommitStats() { return group_.stats(); }

 private:
  Result autocommit(std::string_view sql, const Params& params);
  // Runs `statement` on a pooled session; once more on a fresh one when the
  // session died while idle.
  Result onSession(const std::function<Result(Connection&)>& statement);
  Result write(std::string_view sql, const Params& params);
  void runTransaction(const std::string& companyId, const std::function<void(Tx&)>& fn);
  void runGrouped(const std::string& companyId, const std::function<void(Tx&)>& fn);
  SessionPool::Lease beginTransaction();
  void commit(SessionPool::Lease& lease, const SqlTransaction& tx);
  void lockForMigrations(Connection& connection);
  void unlockAfterMigrations(SessionPool::Lease& lease);
  std::shared_ptr<const EmitHook> emitHook() const;
  // The committed-events hook, when the transaction emitted.
  void afterEventsCommitted(const SqlTransaction& tx) const;

  DatabaseUrl url_;
  int queryTimeoutMs_;
  SessionPool pool_;
  GroupCommit group_;  // SQLite: one writer at a time, committed in batches
  mutable std::mutex hookMutex_;
  std::shared_ptr<const EmitHook> emitHook_;
  std::shared_ptr<const CommittedEventsHook> committedEventsHook_;
};

}  // namespace rapport::host
