#include "FanOut.h"

#include "DeliveryStore.h"
#include "WebhookStore.h"
#include "WebhooksJson.h"
#include "rapport/ids.h"

namespace rapport::webhooks {

NewDelivery eventDelivery(const std::string& webhookId, const Event& event, std::int64_t due,
                          std::size_t maxPayloadBytes) {
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
      envelopeJson(delivery.envelopeId, event.type, event.createdAt, event.actor, event.data)
          .dump();
  // Over the cap the receiver gets the record's id and fetches it: the
  // outbox keeps no huge copies per webhook for weeks, and receivers that
  // cap their request bodies still take every delivery.
  if (delivery.payload.size() > maxPayloadBytes) {
    delivery.payload =
        thinEnvelopeJson(delivery.envelopeId, event.type, event.createdAt, event.actor, event.data)
            .dump();
  }
  return delivery;
}

void FanOut::operator()(Tx& tx, const Event& event) const {
  const std::vector<std::string> webhooks = webhook_store::subscribedActive(tx, event.type);
  if (webhooks.empty()) return;

  // The schedule is read in start(); an event emitted before (another
  // module's start()) is simply due at once.
  const std::chrono::seconds first =
      deliverer_.started() ? deliverer_.schedule().first() : std::chrono::seconds(0);
  const std::int64_t due = event.createdAt + static_cast<std::int64_t>(first.count()) * 1000000;
  for (const std::string& webhookId : webhooks) {
    delivery_store::insert(tx, eventDelivery(webhookId, event, due, maxPayloadBytes_));
  }

  // One worker starts at commit, not at the next poll; it wakes another when
  // it finds more than one batch due (DeliveryWorker), so a quiet commit
  // costs one worker's query, not every worker's.
  tx.afterCommit([workers = workers_] {
    if (workers) workers->wakeOne();
  });
}

}  // namespace rapport::webhooks
