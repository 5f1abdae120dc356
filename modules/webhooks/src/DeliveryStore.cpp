// SQL of the deliveries. Statements use "?" on both engines; the claim adds
// FOR UPDATE SKIP LOCKED on PostgreSQL (SQLite has no row locks and needs
// none: its writers take turns).
#include "DeliveryStore.h"

#include <algorithm>

namespace rapport::webhooks::delivery_store {
namespace {

// The list's columns, in the order WebhooksJson shows them.
const std::string kListColumns =
    "id, event, status, response_code, attempts, created_at, last_attempt_at";
// A single read adds the envelope and the receiver's answer.
const std::string kDetailColumns = kListColumns + ", payload, response_body";
// What a claim returns.
const std::string kClaimReturning =
    " RETURNING id, company_id, webhook_id, event, payload, attempts";

std::vector<ClaimedDelivery> claimed(const Result& rows, const std::string& lease,
                                     std::int64_t leaseUntil) {
  std::vector<ClaimedDelivery> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    out.push_back({.id = row.str("id"),
                   .companyId = row.str("company_id"),
                   .webhookId = row.str("webhook_id"),
                   .event = row.str("event"),
                   .payload = row.str("payload"),
                   .attempts = row.i64("attempts"),
                   .lease = lease,
                   .leaseUntil = leaseUntil});
  }
  return out;
}

}  // namespace

void insert(Tx& tx, const NewDelivery& d) {
  tx.exec(
      "INSERT INTO webhook_deliveries (id, company_id, webhook_id, envelope_id, event, "
      "event_id, payload, status, attempts, created_at, next_attempt_at, lease, "
      "lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)",
      {d.id, tx.companyId(), d.webhookId, d.envelopeId, d.event, d.eventId, d.payload, d.createdAt,
       d.nextAttemptAt, d.lease, d.leaseUntil});
}

bool anyDue(Queryable& db, std::int64_t now) {
  return !db.query(
                "SELECT 1 AS due FROM webhook_deliveries WHERE status = 'pending' "
                "AND next_attempt_at IS NOT NULL AND next_attempt_at <= ? "
                "AND (lease IS NULL OR lease_until < ?) LIMIT 1",
                {now, now})
              .empty();
}

std::vector<ClaimedDelivery> claimDue(Queryable& db, std::int64_t now, const std::string& lease,
                                      std::int64_t leaseUntil, int limit) {
  // The subquery walks webhook_deliveries_due (partial: pending and
  // scheduled only) from the oldest due; rows held by a live lease are
  // skipped by the condition, rows another instance is claiming right now
  // by SKIP LOCKED.
  const std::string lock = db.dialect() == Dialect::PostgreSQL ? " FOR UPDATE SKIP LOCKED" : "";
  Result rows = db.query(
      "UPDATE webhook_deliveries SET lease = ?, lease_until = ? WHERE id IN ("
      "SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL "
      "AND next_attempt_at <= ? AND (lease IS NULL OR lease_until < ?) "
      "ORDER BY next_attempt_at LIMIT ?" +
          lock + ")" + kClaimReturning + ", next_attempt_at",
      {lease, leaseUntil, now, now, limit});
  // RETURNING comes in the engine's order: the batch is sent oldest due
  // first (a backfill's deliveries are due in the events' order).
  std::stable_sort(rows.rows.begin(), rows.rows.end(), [](const Row& a, const Row& b) {
    return a.i64("next_attempt_at") < b.i64("next_attempt_at");
  });
  return claimed(rows, lease, leaseUntil);
}

std::optional<ClaimedDelivery> claimFailed(Queryable& db, const std::string& tenant,
                                           const std::string& webhookId, const std::string& id,
                                           std::int64_t now, const std::string& lease,
                                           std::int64_t leaseUntil) {
  const Result rows = db.query(
      "UPDATE webhook_deliveries SET lease = ?, lease_until = ? "
      "WHERE company_id = ? AND webhook_id = ? AND id = ? AND status = 'failed' "
      "AND (lease IS NULL OR lease_until < ?)" +
          kClaimReturning,
      {lease, leaseUntil, tenant, webhookId, id, now});
  auto out = claimed(rows, lease, leaseUntil);
  if (out.empty()) return std::nullopt;
  return std::move(out.front());
}

std::optional<Row> record(Tx& tx, const ClaimedDelivery& d, const AttemptRecord& r) {
  // next_attempt_at is kept only while the webhook is active: a webhook
  // paused during the attempt keeps its delivery pending but unscheduled.
  const Result rows = tx.query(
      "UPDATE webhook_deliveries SET attempts = attempts + 1, response_code = ?, "
      "response_body = ?, last_attempt_at = ?, status = ?, next_attempt_at = CASE WHEN EXISTS ("
      "SELECT 1 FROM webhooks w WHERE w.company_id = webhook_deliveries.company_id "
      "AND w.id = webhook_deliveries.webhook_id AND w.is_active) THEN CAST(? AS BIGINT) "
      "ELSE NULL END, lease = NULL, lease_until = NULL "
      "WHERE company_id = ? AND id = ? AND lease = ? RETURNING " +
          kListColumns,
      {r.responseCode, r.responseBody, r.attemptedAt, r.status, r.nextAttemptAt, d.companyId, d.id,
       d.lease});
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

void release(Queryable& db, const ClaimedDelivery& d, bool pause) {
  if (pause) {
    db.exec(
        "UPDATE webhook_deliveries SET lease = NULL, lease_until = NULL, next_attempt_at = NULL "
        "WHERE company_id = ? AND id = ? AND lease = ?",
        {d.companyId, d.id, d.lease});
  } else {
    db.exec(
        "UPDATE webhook_deliveries SET lease = NULL, lease_until = NULL "
        "WHERE company_id = ? AND id = ? AND lease = ?",
        {d.companyId, d.id, d.lease});
  }
}

void removeOrphan(Queryable& db, const ClaimedDelivery& d) {
  db.exec("DELETE FROM webhook_deliveries WHERE company_id = ? AND id = ? AND lease = ?",
          {d.companyId, d.id, d.lease});
}

void pause(Tx& tx, const std::string& webhookId) {
  tx.exec(
      "UPDATE webhook_deliveries SET next_attempt_at = NULL "
      "WHERE company_id = ? AND webhook_id = ? AND status = 'pending'",
      {tx.companyId(), webhookId});
}

void resume(Tx& tx, const std::string& webhookId, std::int64_t now) {
  tx.exec(
      "UPDATE webhook_deliveries SET next_attempt_at = ? "
      "WHERE company_id = ? AND webhook_id = ? AND status = 'pending' "
      "AND event_id IS NOT NULL",
      {now, tx.companyId(), webhookId});
}

void removeOfWebhook(Tx& tx, const std::string& webhookId) {
  tx.exec("DELETE FROM webhook_deliveries WHERE company_id = ? AND webhook_id = ?",
          {tx.companyId(), webhookId});
}

std::optional<Row> find(Queryable& db, const std::string& tenant, const std::string& webhookId,
                        const std::string& id) {
  const Result rows = db.query("SELECT " + kDetailColumns +
                                   " FROM webhook_deliveries "
                                   "WHERE company_id = ? AND id = ? AND webhook_id = ?",
                               {tenant, id, webhookId});
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

const std::map<std::string, std::string>& sortColumns() {
  static const std::map<std::string, std::string> columns = {{"created_at", "created_at"}};
  return columns;
}

Sort defaultSort() {
  return {.column = "created_at", .descending = true};
}

ListPage list(Queryable& db, const std::string& tenant, const std::string& webhookId,
              const DeliveryFilter& filter, const Sort& sort, const PageRequest& page) {
  // Served by webhook_deliveries_list, _status or _event (all led by
  // company_id, webhook_id and ending in created_at, id).
  WhereClause where(db.dialect(), tenant);
  where.add("webhook_id = ?", {webhookId});
  if (filter.status) where.add("status = ?", {*filter.status});
  if (filter.event) where.add("event = ?", {*filter.event});
  return selectPage(db, kListColumns, "webhook_deliveries", where, sort, page);
}

std::int64_t purgeFinished(Queryable& db, std::int64_t cutoff, int batch) {
  return db.exec(
      "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries "
      "WHERE status <> 'pending' AND created_at < ? ORDER BY created_at LIMIT ?)",
      {cutoff, batch});
}

std::int64_t failAbandonedPings(Queryable& db, std::int64_t now) {
  return db.exec(
      "UPDATE webhook_deliveries SET status = 'failed', lease = NULL, lease_until = NULL "
      "WHERE status = 'pending' AND event_id IS NULL AND lease_until < ?",
      {now});
}

}  // namespace rapport::webhooks::delivery_store
