#include "health/EnableRoute.h"

#include "DeliveryStore.h"
#include "FanOut.h"
#include "WebhookStore.h"
#include "WebhooksJson.h"
#include "health/HealthCheck.h"
#include "health/HealthStore.h"
#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/time.h"
#include "rapport/validation.h"
#include "replay/Redelivery.h"

namespace rapport::webhooks {
namespace {

const char* const kWebhookNotFound = "Webhook not found.";
const char* const kAlreadyEnabled = "The webhook is already enabled.";
// Events read from the log per page (EventQuery's maximum).
constexpr std::size_t kLogPage = 1000;

// The webhook's own webhook.disabled notice was never meant for it.
bool ownNotice(const Event& event, const std::string& webhookId) {
  if (event.type != kWebhookDisabledEvent) return false;
  const Json* id = event.data.find("id");
  return id != nullptr && id->isString() && id->asString() == webhookId;
}

// One delivery per event of the webhook's types recorded at or after
// `since`, but its own webhook.disabled notice.
Redelivered backfill(Tx& tx, const EventLog& log, const std::string& webhookId,
                     const std::vector<std::string>& types, std::int64_t since, std::int64_t now,
                     std::size_t maxPayloadBytes) {
  return redeliver(
      tx, log, webhookId,
      {.query = {.afterSequence = 0, .since = since, .types = types, .limit = kLogPage},
       .due = now,
       .cap = kMaxRedelivery,
       .skip = [&](const Event& event) { return ownNotice(event, webhookId); },
       .maxPayloadBytes = maxPayloadBytes});
}

}  // namespace

Response EnableRoute::operator()(const Request& request) const {
  Validator v(request.bodyObject());
  const Field<bool> backfillField = v.boolean("backfill", v.present("backfill"));
  v.check();
  const bool wantBackfill = backfillField.valueOr(false);
  const std::string& id = request.param("id");

  Json webhook;
  Redelivered done;
  bool enabled = false;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    done = {};
    enabled = false;
    const auto row = webhook_store::find(tx, tx.companyId(), id, RowLock::NoKeyUpdate);
    if (!row) throw Error::notFound(kWebhookNotFound);
    if (row->flag("is_active")) {
      if (wantBackfill) throw Error::conflict(kAlreadyEnabled);
      webhook = webhookJson(*row);
      return;
    }
    // Missed since it was disabled; for a PATCH-deactivated webhook, since
    // its last change (never earlier than the pause: nothing is sent twice).
    const std::int64_t since = row->optI64("disabled_at").value_or(row->i64("updated_at"));
    Webhook stored = webhook_store::fromRow(*row);
    stored.active = true;
    const std::int64_t now = nowMicros();
    webhook_store::update(tx, id, stored, stored.events, std::nullopt, now);
    health_store::markHealthy(tx, id);
    delivery_store::resume(tx, id, now);
    if (wantBackfill) {
      done = backfill(tx, host_.eventLog(), id, stored.events, since, now, maxPayloadBytes_);
      if (done.overCap) {
        // Refused whole (the webhook stays disabled): nothing is dropped silently.
        throw Error::validation(
            {{"backfill",
              {"More than " + std::to_string(kMaxRedelivery) +
               " events were missed: enable without backfill, then replay them in parts "
               "(POST /webhooks/{id}/replay)."}}});
      }
    }
    webhook = webhookJson(*webhook_store::find(tx, tx.companyId(), id));
    enabled = true;
    tx.afterCommit([workers = workers_] {
      if (workers) workers->wake();
    });
  });
  if (enabled) {
    host_.log().info("webhook enabled: webhook=" + id +
                     " backfilled=" + std::to_string(done.count) +
                     (done.truncated ? " truncated=true" : " truncated=false"));
  }
  return Response::ok(
      Json::object(
          {{"webhook", webhook}, {"backfilled", done.count}, {"truncated", done.truncated}}),
      enabled ? "Webhook enabled." : "The webhook was already enabled.");
}

void describeEnableRoute(Registry& registry) {
  registry.describe(
      "POST", "/webhooks/{id}/enable",
      {.summary = "Enable a webhook again, optionally delivering what it missed",
       .description =
           "Needs the owner or admin role. Makes the webhook active, clears `disabled_reason` "
           "and `disabled_at`, and resumes its pending deliveries. With `backfill` true it also "
           "gets one new delivery per event of its types recorded since it was disabled (for "
           "a webhook deactivated with PATCH, since its last change), in the event log's "
           "order, after the company's fresh deliveries; `truncated` says the retention already "
           "removed some of them. At most 10000 events (422 beyond, and nothing changes: "
           "enable without backfill, then replay in parts). An active webhook answers 200 "
           "with `backfilled` 0, or 409 when a backfill is asked.",
       .body = schema::object({{"backfill", schema::boolean("Default false.")}}),
       .data = schema::object({{"webhook", schema::ref("Webhook")},
                               {"backfilled", schema::integer("Deliveries written.")},
                               {"truncated", schema::boolean()}},
                              {"webhook", "backfilled", "truncated"}),
       .errors = {409}});
}

}  // namespace rapport::webhooks
