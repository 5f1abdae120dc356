#include "FanOut.h"

#include "DeliveryStore.h"
#include "WebhookStore.h"
#include "WebhooksJson.h"
#include "rapport/ids.h"

namespace rapport::webhooks {
void FanOut::operator()(Tx& tx, const Event& event) const {
  const std::vector<std::string> webhooks = webhook_store::subscribedActive(tx, event.type);
  if (webhooks.empty()) return;

  // The schedule is read in start(); an event emitted before (another
  // module's start()) is simply due at once.
  const std::chrono::seconds first =
      deliverer_.started() ? deliverer_.schedule().first() : std::chrono::seconds(0);
  const std::int64_t due = event.createdAt + static_cast<std::int64_t>(first.count()) * 1000000;
  for (const std::string& webhookId : webhooks) {
    NewDelivery delivery{.id = newId("whd_"),
                         .webhookId = webhookId,
                         .envelopeId = newId("evt_"),
                         .event = event.type,
                         .eventId = event.id,
                         .payload = {},
                         .createdAt = event.createdAt,
                         .nextAttemptAt = due,
                         .lease = std::nullopt,
                         .leaseUntil = std::nullopt};
    delivery.payload =
        envelopeJson(delivery.envelopeId, event.type, event.createdAt, event.data).dump();
    delivery_store::insert(tx, delivery);
  }

  // The workers start at commit, not at their next poll. A transaction with
  // several events registers several wakes: each is a counter increment, and
  // workers that are already awake run once more at most (jobs.h).
  tx.afterCommit([workers = workers_] {
    if (workers) workers->wake();
  });
}

}  // namespace rapport::webhooks
