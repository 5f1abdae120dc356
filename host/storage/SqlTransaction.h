// The Tx a transaction callback receives: statements on the transaction's
// session, events through the emit hook, callbacks for after the commit.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "storage/Connection.h"
#include "storage/SqlDatabase.h"

namespace rapport::host {

class SqlTransaction final : public Tx {
 public:
  SqlTransaction(Connection& connection, std::string companyId,
                 std::shared_ptr<const EmitHook> emitHook);

  Dialect dialect() const override { return connection_.dialect(); }
  Result query(std::string_view sql, const Params& params = {}) override;
  std::int64_t exec(std::string_view sql, const Params& params = {}) override;
  const std::string& companyId() const override { return companyId_; }
  void emit(const std::string& type, const Json& data) override;
  void afterCommit(std::function<void()> fn) override;

  // Whether an event was emitted (SqlDatabase's committed-events hook).
  bool emitted() const { return emitted_; }
  // The first statement failure the callback saw (and perhaps swallowed).
  const std::optional<DbError>& failure() const { return failure_; }
  // Runs the after-commit callbacks in order; a failure is logged and the
  // next callback still runs.
  void runAfterCommit();

 private:
  Connection& connection_;
  std::string companyId_;
  std::shared_ptr<const EmitHook> emitHook_;
  std::vector<std::function<void()>> afterCommit_;
  std::optional<DbError> failure_;
  bool emitted_ = false;
};

}  // namespace rapport::host
