// The "health" job (docs/modules/webhooks.md, "Self-healing"): every
// webhooks.health_check_seconds it disables the active webhooks whose
// deliveries have all failed for webhooks.disable_after_seconds
// (health_store::failing), each in one transaction with its
// `webhook.disabled` event, then mails the company's owners
// (Host::notifyOwners).
//
// The webhook is made inactive before the event is emitted, so the fan-out
// does not deliver its own notice to it; other webhooks of the company
// subscribed to webhook.disabled get it. Its pending deliveries stay
// pending, unscheduled (as when a PATCH deactivates it), until it is enabled.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "health/Disabling.h"
#include "health/HealthStore.h"
#include "rapport/jobs.h"
#include "rapport/module.h"

namespace rapport::webhooks {

class HealthCheck {
 public:
  // `host` outlives this object; `disableAfter` is more than zero.
  HealthCheck(Host& host, std::chrono::seconds disableAfter)
      : host_(host), disableAfter_(disableAfter) {}

  // One run of the job: at most one batch of failing webhooks (the rest,
  // and any that failed to be disabled, at the next run).
  void run(JobContext& context);

 private:
  void disable(const FailingWebhook& webhook, std::int64_t cutoff);

  Host& host_;
  std::chrono::seconds disableAfter_;
};

}  // namespace rapport::webhooks
