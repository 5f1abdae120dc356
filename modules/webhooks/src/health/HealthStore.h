// SQL of a webhook's health (docs/modules/webhooks.md, "Self-healing"): the
// columns failing_since, last_error, disabled_reason and disabled_at of
// `webhooks` (migration 0002_webhook_health), and nothing else.
//
// A failing streak starts with the first failed attempt after a success (or
// the creation) and ends with the next success; the health check disables a
// webhook whose streak is older than webhooks.disable_after_seconds and that
// has at least one delivery failed for good since the streak began.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"

namespace rapport::webhooks {

// Why the health check disabled a webhook (the API's `disabled_reason`).
inline constexpr const char* kDisabledFailing = "failing";
inline constexpr const char* kDisabledGone = "gone";  // the receiver answered 410 Gone

// A webhook the health check found failing for long enough.
struct FailingWebhook {
  std::string companyId;
  std::string id;
};

// What a batch of attempts says about one webhook, folded in attempt order.
struct HealthChange {
  bool succeeded = false;  // some attempt succeeded (then the streak is what came after)
  std::optional<std::int64_t> failingSince;  // first failure after the last success
  std::string lastError;                     // the last failure's summary
};

// The streak a webhook was disabled for.
struct Streak {
  std::int64_t failingSince = 0;
  std::string lastError;
};

namespace health_store {

// Writes `change` to the webhook (in the transaction recording the
// attempts). A success with no later failure clears the streak; a success
// followed by failures starts a new one; failures alone start one unless it
// runs already.
void apply(Queryable& tx, const std::string& companyId, const std::string& webhookId,
           const HealthChange& change);

// Active webhooks of every company whose streak began at or before
// `cutoff` and with a delivery failed for good since, up to `limit`,
// oldest streak first.
std::vector<FailingWebhook> failing(Queryable& db, std::int64_t cutoff, int limit);

// Disables tx's tenant's webhook `id` for `reason` at `now` if it is still
// active and failing since `cutoff` or earlier; nullopt when it was not (an
// instance or a PATCH got there first, or it recovered).
std::optional<Streak> disable(Tx& tx, const std::string& id, std::int64_t cutoff, std::int64_t now,
                              const char* reason);

// Disables tx's tenant's webhook `id` at `now` because its receiver answered
// 410 Gone, if it is still active; the streak (begun now if none ran) is
// returned, with `lastError`; nullopt when it was not active.
std::optional<Streak> disableGone(Tx& tx, const std::string& id, std::int64_t now,
                                  const std::string& lastError);

// The streak and the disable marks go: a webhook made active again starts healthy.
void markHealthy(Tx& tx, const std::string& id);

}  // namespace health_store
}  // namespace rapport::webhooks
