// SQL of the deliveries (table `webhook_deliveries`, the outbox), and nothing
// else. Statements of one company filter on company_id; the workers' claim,
// the retention purge and the ping sweep read across companies through
// their own partial indexes (docs/modules/webhooks.md, "Storage").
//
// A delivery is worked on by whoever holds its lease: a random token in
// `lease` and an end in `lease_until`. Claims take only deliveries whose
// lease is free or expired; every write of an attempt's result is guarded by
// `WHERE id = ? AND lease = ?`, so a worker that lost its lease (it stalled
// past lease_until and another took the delivery) writes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/pagination.h"
#include "rapport/query.h"

namespace rapport::webhooks {

// Delivery states (the API's `status`).
inline constexpr const char* kPending = "pending";
inline constexpr const char* kSuccess = "success";
inline constexpr const char* kFailed = "failed";

// A delivery as written by the fan-out or a ping.
struct NewDelivery {
  std::string id;  // whd_
  std::string webhookId;
  std::string envelopeId;  // evt_, the envelope's `id`
  std::string event;
  std::optional<std::string> eventId;  // the event log's evt_ occurrence; none for a ping
  std::string payload;                 // the envelope exactly as sent
  std::int64_t createdAt = 0;
  std::optional<std::int64_t> nextAttemptAt;  // none: never taken by a worker
  std::optional<std::string> lease;           // a ping is held from the start
  std::optional<std::int64_t> leaseUntil;
  bool backlog = false;  // written by a replay or a backfill: claimed after fresh ones
};

// A delivery a caller holds the lease of, with what sending it needs.
struct ClaimedDelivery {
  std::string id;
  std::string companyId;
  std::string webhookId;
  std::string event;
  std::string payload;
  std::int64_t attempts = 0;  // attempts made before this one
  std::string lease;
  std::int64_t leaseUntil = 0;
};

// The result of one attempt, as recorded.
struct AttemptRecord {
  std::string status;                        // kPending (retry scheduled), kSuccess, kFailed
  std::optional<std::int64_t> responseCode;  // none when no answer came
  std::optional<std::string> responseBody;   // valid UTF-8, at most 4 KiB
  std::int64_t attemptedAt = 0;
  std::optional<std::int64_t> nextAttemptAt;  // with kPending: when to try again
};

// How a worker's claim shares the deliveries out (docs/modules/webhooks.md,
// "Fairness"). A batch in flight is one lease held on deliveries a worker
// claimed (pings and manual retries are not counted: SyncAttempts caps them).
struct ClaimPolicy {
  std::string after;   // round robin: the companies after this id are tried first
  int perCompany = 0;  // batches in flight a company may hold (0: no cap)
  int perTarget = 0;   // batches in flight a webhook may hold (0: no cap)
};

// List filters; they combine with AND.
struct DeliveryFilter {
  std::optional<std::string> status;
  std::optional<std::string> event;
};

namespace delivery_store {

void insert(Tx& tx, const NewDelivery& delivery);

// True when some delivery is due (what claimDue would take): a read, so an
// idle worker's poll takes no write lock (SQLite's single writer).
bool anyDue(Queryable& db, std::int64_t now);

// Takes up to `limit` deliveries of ONE company that are due (pending,
// next_attempt_at <= now, lease free or expired), under `lease` until
// `leaseUntil`: the first company in id order after `policy.after` (then
// from the start: round robin) that is under its cap of batches in flight
// and has a due delivery to a webhook under its own cap; of that company,
// fresh deliveries before backlog (replay, backfill), oldest due first,
// only to webhooks under their cap. Empty when nothing may be taken. The
// claim itself is one statement: on PostgreSQL its row selection is
// FOR UPDATE SKIP LOCKED (instances never take the same row); on SQLite the
// single UPDATE ... RETURNING is atomic. The caps hold across workers and
// instances because the claims take turns: each is one transaction (on
// PostgreSQL holding an advisory lock until its commit; on SQLite the one
// writer's), so it counts the batches the claim before it leased. Separate
// statements let two claims at once each miss the other's batch and both
// take one beyond the cap: a company with a hanging receiver could then hold
// every worker. Call it outside any transaction.
std::vector<ClaimedDelivery> claimDue(Database& db, std::int64_t now, const std::string& lease,
                                      std::int64_t leaseUntil, int limit,
                                      const ClaimPolicy& policy = {});

// Takes delivery `id` of `webhookId` for a manual retry, only when it is
// failed and its lease is free or expired; nullopt otherwise (see find()).
std::optional<ClaimedDelivery> claimFailed(Queryable& db, const std::string& tenant,
                                           const std::string& webhookId, const std::string& id,
                                           std::int64_t now, const std::string& lease,
                                           std::int64_t leaseUntil);

// Writes an attempt's result and frees the lease, if `delivery`'s lease is
// still held. A pending result keeps its next_attempt_at only while the
// webhook is active (else NULL: paused). Returns the delivery after the
// write (id, event, status, response_code, attempts, last_attempt_at), or
// nullopt when the lease was lost or the delivery is gone.
std::optional<Row> record(Tx& tx, const ClaimedDelivery& delivery, const AttemptRecord& result);
// record() for each attempt of a batch, in one statement; the rows in the
// attempts' order (nullopt where the lease was lost or the delivery is
// gone). The deliveries' ids are distinct.
struct AttemptOf {
  const ClaimedDelivery* delivery = nullptr;
  AttemptRecord result;
};
std::vector<std::optional<Row>> recordAll(Tx& tx, const std::vector<AttemptOf>& attempts);
// Frees the lease without an attempt (a worker that cannot finish in time,
// or a delivery of a webhook paused meanwhile: `pause` clears next_attempt_at).
void release(Queryable& db, const ClaimedDelivery& delivery, bool pause = false);
// Frees the lease without an attempt and makes the delivery due at `until`
// (the circuit breaker: nothing is counted, nothing fails).
void defer(Queryable& db, const ClaimedDelivery& delivery, std::int64_t until);
// Every pending delivery of the webhook not attempted yet, due before `until`
// and not held at `now`, becomes due at `until` (a circuit that opened);
// returns how many. Deliveries in their retry schedule keep it.
std::int64_t deferWebhook(Queryable& db, const std::string& companyId, const std::string& webhookId,
                          std::int64_t until, std::int64_t now);
// Deletes a delivery whose webhook is gone (guarded by the lease).
void removeOrphan(Queryable& db, const ClaimedDelivery& delivery);

// The webhook's pending deliveries stop being taken (next_attempt_at NULL),
// or are due again now (pings excepted: they are never automatic).
void pause(Tx& tx, const std::string& webhookId);
void resume(Tx& tx, const std::string& webhookId, std::int64_t now);
// Deletes every delivery of the webhook.
void removeOfWebhook(Tx& tx, const std::string& webhookId);

// The delivery with payload and response_body, or nullopt when `id` is not a
// delivery of `webhookId` in `tenant`.
std::optional<Row> find(Queryable& db, const std::string& tenant, const std::string& webhookId,
                        const std::string& id);

const std::map<std::string, std::string>& sortColumns();
Sort defaultSort();
// One page of the webhook's deliveries (without payload and response_body).
ListPage list(Queryable& db, const std::string& tenant, const std::string& webhookId,
              const DeliveryFilter& filter, const Sort& sort, const PageRequest& page);

// Deletes up to `batch` finished (success or failed) deliveries created
// before `cutoff`; returns how many went.
std::int64_t purgeFinished(Queryable& db, std::int64_t cutoff, int batch);
// Pings still pending after their lease ended (the server died during the
// attempt) become failed, so they can be retried by hand; returns how many.
std::int64_t failAbandonedPings(Queryable& db, std::int64_t now);

}  // namespace delivery_store
}  // namespace rapport::webhooks
