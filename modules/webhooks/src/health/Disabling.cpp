#include "health/Disabling.h"

#include <exception>

#include "DeliveryStore.h"
#include "WebhookStore.h"
#include "WebhooksJson.h"
#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

std::string noticeText(const Json& webhook, const std::string& why, const Streak& streak) {
  const std::string id = webhook["id"].asString();
  return "The webhook " + webhook["url"].asString() + " (" + id + ") has been disabled: " + why +
         ".\n\nLast error: " +
         (streak.lastError.empty() ? std::string("unknown") : streak.lastError) +
         ".\n\nEvents are no longer sent to it. Once the receiver works again, re-enable it "
         "with POST /v1/webhooks/" +
         id +
         "/enable; with {\"backfill\": true} it also receives the events recorded while it "
         "was disabled (those the event log still keeps).\n";
}

void notify(Host& host, const std::string& companyId, const Json& webhook, const std::string& why,
            const Streak& streak) {
  try {
    host.notifyOwners(companyId, "Webhook disabled: " + webhook["url"].asString(),
                      noticeText(webhook, why, streak));
  } catch (const std::exception& e) {
    // The webhook stays disabled (and its event recorded): only the mail is lost.
    host.log().error("owners not notified of a disabled webhook: webhook=" +
                     webhook["id"].asString() + " error=\"" + e.what() + "\"");
  }
}

}  // namespace

bool disableWebhook(Host& host, const std::string& companyId, const std::string& id,
                    const DisableMark& mark, const DisableReason& reason) {
  Json disabled;
  std::optional<Streak> streak;
  host.db().transaction(companyId, [&](Tx& tx) {
    streak = mark(tx);
    if (!streak) return;
    delivery_store::pause(tx, id);
    disabled = webhookJson(*webhook_store::find(tx, tx.companyId(), id));
    tx.emit(kWebhookDisabledEvent, disabled);
  });
  if (!streak) return false;
  const std::string why = reason(*streak);
  host.log().warn("webhook disabled: " + why + ": webhook=" + id + " company=" + companyId +
                  " failing_since=" + isoTimestamp(streak->failingSince));
  notify(host, companyId, disabled, why, *streak);
  return true;
}

void disableGoneWebhook(Host& host, const std::string& companyId, const std::string& id) {
  try {
    disableWebhook(
        host, companyId, id,
        [&](Tx& tx) {
          return health_store::disableGone(tx, id, nowMicros(), "HTTP 410 (the receiver is gone)");
        },
        [](const Streak&) { return std::string("its receiver answered 410 Gone"); });
  } catch (const std::exception& e) {
    // The attempt is recorded; the next 410 tries again.
    host.log().error("webhook could not be disabled: webhook=" + id + " error=\"" + e.what() +
                     "\"");
  }
}

}  // namespace rapport::webhooks
