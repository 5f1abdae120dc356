// Statements use "?" on both engines; CAST gives PostgreSQL the type of a
// parameter it cannot infer inside COALESCE.
#include "health/HealthStore.h"

namespace rapport::webhooks::health_store {

void apply(Queryable& tx, const std::string& companyId, const std::string& webhookId,
           const HealthChange& change) {
  if (change.succeeded && !change.failingSince) {
    // The common case on a healthy webhook: no write unless a streak runs.
    tx.exec(
        "UPDATE webhooks SET failing_since = NULL, last_error = NULL "
        "WHERE company_id = ? AND id = ? AND failing_since IS NOT NULL",
        {companyId, webhookId});
  } else if (change.succeeded) {
    tx.exec("UPDATE webhooks SET failing_since = ?, last_error = ? WHERE company_id = ? AND id = ?",
            {*change.failingSince, change.lastError, companyId, webhookId});
  } else if (change.failingSince) {
    tx.exec(
        "UPDATE webhooks SET failing_since = COALESCE(failing_since, CAST(? AS BIGINT)), "
        "last_error = ? WHERE company_id = ? AND id = ?",
        {*change.failingSince, change.lastError, companyId, webhookId});
  }
}

std::vector<FailingWebhook> failing(Queryable& db, std::int64_t cutoff, int limit) {
  // webhooks_failing holds only webhooks in a streak; the EXISTS walks
  // webhook_deliveries_status (company_id, webhook_id, status, ...).
  const Result rows = db.query(
      "SELECT w.company_id AS company_id, w.id AS id FROM webhooks w "
      "WHERE w.failing_since IS NOT NULL AND w.failing_since <= ? AND w.is_active = ? "
      "AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.company_id = w.company_id "
      "AND d.webhook_id = w.id AND d.status = 'failed' AND d.last_attempt_at >= w.failing_since) "
      "ORDER BY w.failing_since LIMIT ?",
      {cutoff, true, limit});
  std::vector<FailingWebhook> out;
  out.reserve(rows.size());
  for (const Row& row : rows) out.push_back({row.str("company_id"), row.str("id")});
  return out;
}

std::optional<Streak> disable(Tx& tx, const std::string& id, std::int64_t cutoff, std::int64_t now,
                              const char* reason) {
  // The conditions again, under the row's lock: of two instances checking
  // at once, one disables and the other changes nothing.
  const Result rows = tx.query(
      "UPDATE webhooks SET is_active = ?, disabled_reason = ?, disabled_at = ?, updated_at = ? "
      "WHERE company_id = ? AND id = ? AND is_active = ? AND failing_since IS NOT NULL "
      "AND failing_since <= ? RETURNING failing_since, last_error",
      {false, std::string(reason), now, now, tx.companyId(), id, true, cutoff});
  if (rows.empty()) return std::nullopt;
  return Streak{.failingSince = rows.front().i64("failing_since"),
                .lastError = rows.front().str("last_error")};
}

std::optional<Streak> disableGone(Tx& tx, const std::string& id, std::int64_t now,
                                  const std::string& lastError) {
  const Result rows = tx.query(
      "UPDATE webhooks SET is_active = ?, disabled_reason = ?, disabled_at = ?, updated_at = ?, "
      "failing_since = COALESCE(failing_since, CAST(? AS BIGINT)), last_error = ? "
      "WHERE company_id = ? AND id = ? AND is_active = ? RETURNING failing_since, last_error",
      {false, std::string(kDisabledGone), now, now, now, lastError, tx.companyId(), id, true});
  if (rows.empty()) return std::nullopt;
  return Streak{.failingSince = rows.front().i64("failing_since"),
                .lastError = rows.front().str("last_error")};
}

void markHealthy(Tx& tx, const std::string& id) {
  tx.exec(
      "UPDATE webhooks SET failing_since = NULL, last_error = NULL, disabled_reason = NULL, "
      "disabled_at = NULL WHERE company_id = ? AND id = ?",
      {tx.companyId(), id});
}

}  // namespace rapport::webhooks::health_store
