#include "health/HealthCheck.h"

#include <exception>

#include "DeliveryStore.h"
#include "WebhookStore.h"
#include "WebhooksJson.h"
#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

constexpr int kBatch = 100;

std::string noticeText(const Json& webhook, const Streak& streak) {
  const std::string id = webhook["id"].asString();
  return "The webhook " + webhook["url"].asString() + " (" + id +
         ") has been disabled: every delivery to it has failed since " +
         isoTimestamp(streak.failingSince) + ".\n\nLast error: " +
         (streak.lastError.empty() ? std::string("unknown") : streak.lastError) +
         ".\n\nEvents are no longer sent to it. Once the receiver works again, re-enable it "
         "with POST /v1/webhooks/" +
         id +
         "/enable; with {\"backfill\": true} it also receives the events recorded while it "
         "was disabled (those the event log still keeps).\n";
}

}  // namespace

void HealthCheck::run(JobContext& context) {
  const std::int64_t cutoff =
      nowMicros() - static_cast<std::int64_t>(disableAfter_.count()) * 1000000;
  for (const FailingWebhook& webhook : health_store::failing(host_.db(), cutoff, kBatch)) {
    if (context.stopping()) return;
    try {
      disable(webhook, cutoff);
    } catch (const std::exception& e) {
      host_.log().error("webhook could not be disabled: webhook=" + webhook.id + " error=\"" +
                        e.what() + "\"");
    }
  }
}

void HealthCheck::disable(const FailingWebhook& failing, std::int64_t cutoff) {
  Json disabled;
  std::optional<Streak> streak;
  host_.db().transaction(failing.companyId, [&](Tx& tx) {
    streak = health_store::disable(tx, failing.id, cutoff, nowMicros(), kDisabledFailing);
    if (!streak) return;
    delivery_store::pause(tx, failing.id);
    disabled = webhookJson(*webhook_store::find(tx, tx.companyId(), failing.id));
    tx.emit(kWebhookDisabledEvent, disabled);
  });
  if (!streak) return;
  host_.log().warn("webhook disabled: every delivery failed: webhook=" + failing.id + " company=" +
                   failing.companyId + " failing_since=" + isoTimestamp(streak->failingSince));
  notify(failing.companyId, disabled, *streak);
}

void HealthCheck::notify(const std::string& companyId, const Json& webhook, const Streak& streak) {
  try {
    host_.notifyOwners(companyId, "Webhook disabled: " + webhook["url"].asString(),
                       noticeText(webhook, streak));
  } catch (const std::exception& e) {
    // The webhook stays disabled (and its event recorded): only the mail is lost.
    host_.log().error("owners not notified of a disabled webhook: webhook=" +
                      webhook["id"].asString() + " error=\"" + e.what() + "\"");
  }
}

}  // namespace rapport::webhooks
