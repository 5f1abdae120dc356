// SQL of the webhooks and their subscriptions, and nothing else: every
// statement filters on the tenant (company_id). Tables `webhooks` and
// `webhook_subscriptions` (migrations/, docs/modules/webhooks.md "Storage").
//
// The store never sees a secret in clear: callers pass it sealed
// (host.secrets().seal(secret, "webhook:" + id)) and open what they read.
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

// The stored fields of a webhook that POST sets and PATCH merges into.
struct Webhook {
  std::string url;
  std::vector<std::string> events;  // the client's order, duplicates removed
  bool active = true;
};

// Where a delivery of a webhook goes, and the sealed keys it is signed with.
struct WebhookTarget {
  std::string url;
  std::string sealedSecret;
  // The secret rotate-secret replaced, sealed, while its overlap lasts
  // (webhooks.rotation_overlap): attempts are signed with both.
  std::optional<std::string> sealedPreviousSecret;
  bool active = true;
};

namespace webhook_store {

// The webhook's row (id, url, events, is_active, disabled_reason, disabled_at,
// created_at, updated_at; never the secret), or nullopt when `id` is not a
// webhook of `tenant`.
std::optional<Row> find(Queryable& db, const std::string& tenant, const std::string& id,
                        RowLock lock = RowLock::None);
// The stored fields of a row returned by find().
Webhook fromRow(const Row& row);
// The url, sealed secrets and state of a webhook, or nullopt when it is
// gone. The previous secret only until its overlap ends (before `now`,
// microseconds).
std::optional<WebhookTarget> target(Queryable& db, const std::string& tenant, const std::string& id,
                                    std::int64_t now);

// Writes the webhook and its subscriptions.
void insert(Tx& tx, const std::string& id, const Webhook& webhook, const std::string& sealedSecret,
            std::int64_t now);
// Rewrites url, events and is_active (and the subscriptions when the events
// differ from `eventsBefore`); the secret too when `sealedSecret` is given,
// which also ends a rotation's overlap (the previous secret stops at once).
void update(Tx& tx, const std::string& id, const Webhook& webhook,
            const std::vector<std::string>& eventsBefore,
            const std::optional<std::string>& sealedSecret, std::int64_t now);
// Rotates the secret: `sealedSecret` signs from now on, and the one it
// replaces keeps signing beside it until `previousUntil` (microseconds; none:
// it stops at once). A previous secret of an earlier rotation is dropped.
void rotateSecret(Tx& tx, const std::string& id, const std::string& sealedSecret,
                  std::optional<std::int64_t> previousUntil, std::int64_t now);
// Clears, across companies, the previous secrets whose overlap ended before
// `now` (the "forget-secrets" job); returns how many.
std::int64_t forgetExpiredSecrets(Queryable& db, std::int64_t now);
// Deletes the webhook and its subscriptions; false when there was none.
bool remove(Tx& tx, const std::string& id);

// The ids of tx's tenant's active webhooks subscribed to `event`: the
// fan-out's one indexed read. On PostgreSQL it locks every subscribed
// webhook FOR SHARE until tx ends, active or not, and reads is_active after
// the lock, so an enable and an emitting transaction take turns (see the
// definition); a delete or an update of the webhook waits for tx.
std::vector<std::string> subscribedActive(Tx& tx, const std::string& event);

// API sort fields of the list and their columns; the default is newest first.
const std::map<std::string, std::string>& sortColumns();
Sort defaultSort();
// One page of the tenant's webhooks, and the total.
ListPage list(Queryable& db, const std::string& tenant, const Sort& sort, const PageRequest& page);

}  // namespace webhook_store
}  // namespace rapport::webhooks
