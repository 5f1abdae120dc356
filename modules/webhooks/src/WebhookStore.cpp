// SQL of the webhooks and their subscriptions. Statements use "?" on both
// engines, with no dialect branch (row locks come from rapport::selectRecord).
#include "WebhookStore.h"

#include "rapport/json.h"

namespace rapport::webhooks::webhook_store {
namespace {

// The columns every read returns: never the secret.
const std::string kColumns =
    "id, url, events, is_active, disabled_reason, disabled_at, created_at, updated_at";

std::string eventsText(const std::vector<std::string>& events) {
  Json array = Json::array();
  for (const std::string& event : events) array.push(event);
  return array.dump();
}

void insertSubscriptions(Tx& tx, const std::string& id, const std::vector<std::string>& events) {
  for (const std::string& event : events) {
    tx.exec("INSERT INTO webhook_subscriptions (company_id, event, webhook_id) VALUES (?, ?, ?)",
            {tx.companyId(), event, id});
  }
}

void deleteSubscriptions(Tx& tx, const std::string& id) {
  tx.exec("DELETE FROM webhook_subscriptions WHERE company_id = ? AND webhook_id = ?",
          {tx.companyId(), id});
}

}  // namespace

std::optional<Row> find(Queryable& db, const std::string& tenant, const std::string& id,
                        RowLock lock) {
  return selectRecord(db, kColumns, "webhooks", tenant, id, lock);
}

Webhook fromRow(const Row& row) {
  Webhook webhook{.url = row.str("url"), .events = {}, .active = row.flag("is_active")};
  const Json events = Json::parse(row.str("events"));
  for (const Json& event : events.asArray()) webhook.events.push_back(event.asString());
  return webhook;
}

std::optional<WebhookTarget> target(Queryable& db, const std::string& tenant, const std::string& id,
                                    std::int64_t now) {
  const auto row = selectRecord(
      db, "url, secret, previous_secret, previous_secret_until, is_active", "webhooks", tenant, id);
  if (!row) return std::nullopt;
  WebhookTarget target{.url = row->str("url"),
                       .sealedSecret = row->str("secret"),
                       .sealedPreviousSecret = std::nullopt,
                       .active = row->flag("is_active")};
  // An ended overlap may still be stored until the hourly sweep: not used.
  if (!row->isNull("previous_secret") && !row->isNull("previous_secret_until") &&
      (*row)["previous_secret_until"].asInt() > now) {
    target.sealedPreviousSecret = row->str("previous_secret");
  }
  return target;
}

void insert(Tx& tx, const std::string& id, const Webhook& webhook, const std::string& sealedSecret,
            std::int64_t now) {
  tx.exec(
      "INSERT INTO webhooks (id, company_id, url, events, secret, is_active, created_at, "
      "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      {id, tx.companyId(), webhook.url, eventsText(webhook.events), sealedSecret, webhook.active,
       now, now});
  insertSubscriptions(tx, id, webhook.events);
}

void update(Tx& tx, const std::string& id, const Webhook& webhook,
            const std::vector<std::string>& eventsBefore,
            const std::optional<std::string>& sealedSecret, std::int64_t now) {
  if (sealedSecret) {
    tx.exec(
        "UPDATE webhooks SET url = ?, events = ?, is_active = ?, secret = ?, "
        "previous_secret = NULL, previous_secret_until = NULL, updated_at = ? "
        "WHERE company_id = ? AND id = ?",
        {webhook.url, eventsText(webhook.events), webhook.active, *sealedSecret, now,
         tx.companyId(), id});
  } else {
    tx.exec(
        "UPDATE webhooks SET url = ?, events = ?, is_active = ?, updated_at = ? "
        "WHERE company_id = ? AND id = ?",
        {webhook.url, eventsText(webhook.events), webhook.active, now, tx.companyId(), id});
  }
  if (webhook.events != eventsBefore) {
    deleteSubscriptions(tx, id);
    insertSubscriptions(tx, id, webhook.events);
  }
}

// The stored sealed value moves to previous_secret as it is: sealed under
// the same context ("webhook:<id>"), it opens exactly like the current one.
// The right-hand sides read the row as it was before this UPDATE.
void rotateSecret(Tx& tx, const std::string& id, const std::string& sealedSecret,
                  std::optional<std::int64_t> previousUntil, std::int64_t now) {
  if (previousUntil) {
    tx.exec(
        "UPDATE webhooks SET previous_secret = secret, previous_secret_until = ?, secret = ?, "
        "updated_at = ? WHERE company_id = ? AND id = ?",
        {*previousUntil, sealedSecret, now, tx.companyId(), id});
  } else {
    tx.exec(
        "UPDATE webhooks SET previous_secret = NULL, previous_secret_until = NULL, secret = ?, "
        "updated_at = ? WHERE company_id = ? AND id = ?",
        {sealedSecret, now, tx.companyId(), id});
  }
}

// Across companies on purpose, through the partial index
// webhooks_previous_secret (only webhooks with a previous secret are in it).
std::int64_t forgetExpiredSecrets(Queryable& db, std::int64_t now) {
  return db.exec(
      "UPDATE webhooks SET previous_secret = NULL, previous_secret_until = NULL "
      "WHERE previous_secret_until IS NOT NULL AND previous_secret_until <= ?",
      {now});
}

bool remove(Tx& tx, const std::string& id) {
  // The webhook row first: on PostgreSQL a ping holding it (FOR KEY SHARE)
  // until its delivery is written makes this wait, so the delivery that
  // commits first is deleted with the rest (DeliveryStore removeOfWebhook).
  const bool removed =
      tx.exec("DELETE FROM webhooks WHERE company_id = ? AND id = ?", {tx.companyId(), id}) > 0;
  if (removed) deleteSubscriptions(tx, id);
  return removed;
}

// PostgreSQL: an enable with backfill (health/EnableRoute) holds the
// webhook's row from its first statement and reads the event log after.
// Were this a plain read, an event whose transaction overlaps the enable
// would be missed by both: this read sees the webhook still inactive, and
// the backfill reads the log before the event commits. Locking the row FOR
// SHARE (which waits for the enable's lock, and the enable for it) makes
// them take turns: either this waits for the enable's commit and then sees
// the webhook active, or the enable waits for this transaction's commit and
// its backfill reads the event. is_active is therefore not in the WHERE: a
// row the snapshot shows inactive would be skipped without waiting.
// Share locks do not conflict with each other, so emitters never wait for
// one another. SQLite serialises writers: a plain read is enough.
std::vector<std::string> subscribedActive(Tx& tx, const std::string& event) {
  const bool postgres = tx.dialect() == Dialect::PostgreSQL;
  const Result rows =
      tx.query(std::string("SELECT s.webhook_id AS webhook_id, w.is_active AS is_active "
                           "FROM webhook_subscriptions s "
                           "JOIN webhooks w ON w.company_id = s.company_id AND w.id = s.webhook_id "
                           "WHERE s.company_id = ? AND s.event = ? ORDER BY s.webhook_id") +
                   (postgres ? " FOR SHARE OF w" : ""),
               {tx.companyId(), event});
  std::vector<std::string> ids;
  ids.reserve(rows.size());
  for (const Row& row : rows) {
    if (row.flag("is_active")) ids.push_back(row.str("webhook_id"));
  }
  return ids;
}

const std::map<std::string, std::string>& sortColumns() {
  static const std::map<std::string, std::string> columns = {{"created_at", "created_at"}};
  return columns;
}

Sort defaultSort() {
  return {.column = "created_at", .descending = true};
}

ListPage list(Queryable& db, const std::string& tenant, const Sort& sort, const PageRequest& page) {
  return selectPage(db, kColumns, "webhooks", WhereClause(db.dialect(), tenant), sort, page);
}

}  // namespace rapport::webhooks::webhook_store
