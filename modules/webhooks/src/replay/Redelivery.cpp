#include "replay/Redelivery.h"

#include "DeliveryStore.h"
#include "FanOut.h"

namespace rapport::webhooks {

Redelivered redeliver(Tx& tx, const EventLog& log, const std::string& webhookId,
                      RedeliveryPlan plan) {
  Redelivered done;
  EventQuery& query = plan.query;
  while (true) {
    const EventPage page = log.read(tx, tx.companyId(), query);
    done.truncated = done.truncated || page.truncated;
    for (const LoggedEvent& logged : page.events) {
      if (plan.skip && plan.skip(logged.event)) continue;
      if (plan.cap > 0 && done.count == plan.cap) {
        done.overCap = true;
        return done;
      }
      NewDelivery delivery =
          eventDelivery(webhookId, logged.event, plan.due + done.count, plan.maxPayloadBytes);
      delivery.backlog = true;  // claimed after the company's fresh deliveries
      delivery_store::insert(tx, delivery);
      ++done.count;
      if (!done.from) done.from = logged.sequence;
      done.to = logged.sequence;
    }
    if (page.events.size() < query.limit) return done;
    query.afterSequence = page.events.back().sequence;
  }
}

}  // namespace rapport::webhooks
