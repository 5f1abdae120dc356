#include "health/HealthCheck.h"

#include <exception>

#include "health/Disabling.h"
#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

constexpr int kBatch = 100;

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
  disableWebhook(
      host_, failing.companyId, failing.id,
      [&](Tx& tx) {
        return health_store::disable(tx, failing.id, cutoff, nowMicros(), kDisabledFailing);
      },
      [](const Streak& streak) {
        return "every delivery to it has failed since " + isoTimestamp(streak.failingSince);
      });
}

}  // namespace rapport::webhooks
