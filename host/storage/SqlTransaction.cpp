#include "storage/SqlTransaction.h"

#include <stdexcept>
#include <utility>

#include "log/Log.h"

namespace rapport::host {

SqlTransaction::SqlTransaction(Connection& connection, std::string companyId,
                               std::shared_ptr<const EmitHook> emitHook)
    : connection_(connection), companyId_(std::move(companyId)), emitHook_(std::move(emitHook)) {}

Result SqlTransaction::query(std::string_view sql, const Params& params) {
  try {
    return connection_.run(sql, params);
  } catch (const DbError& error) {
    if (!failure_) failure_ = error;
    throw;
  }
}

std::int64_t SqlTransaction::exec(std::string_view sql, const Params& params) {
  return query(sql, params).affected;
}

void SqlTransaction::emit(const std::string& type, const Json& data) {
  if (!emitHook_ || !*emitHook_) {
    throw std::logic_error("Tx::emit(\"" + type + "\"): no emit hook is set on the database");
  }
  (*emitHook_)(*this, type, data);
  emitted_ = true;
}

void SqlTransaction::afterCommit(std::function<void()> fn) {
  afterCommit_.push_back(std::move(fn));
}

void SqlTransaction::runAfterCommit() {
  // The commit already happened: a failing callback (cache invalidation, a
  // job wake-up) must not turn a stored change into an error for the caller,
  // nor stop the callbacks after it; it is logged so it is not lost.
  for (auto& fn : afterCommit_) {
    try {
      if (fn) fn();
    } catch (const std::exception& e) {
      log::error("after-commit callback failed", {{"company", companyId_}, {"error", e.what()}});
    } catch (...) {
      log::error("after-commit callback failed",
                 {{"company", companyId_}, {"error", "unknown exception"}});
    }
  }
}

}  // namespace rapport::host
