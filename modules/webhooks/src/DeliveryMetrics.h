// The module's own gauges in GET /metrics (SDK rapport/metrics.h,
// Registry::metrics; docs/operations.md "Metrics"), read at each scrape with
// one statement over the outbox:
//   rapport_webhook_deliveries{status}: deliveries recorded, by status
//     (pending, success, failed; finished ones are kept
//     webhooks.delivery_retention_days);
//   rapport_webhook_oldest_pending_age_seconds: the age of the oldest
//     pending one (0 when none).
// A failing query throws: the host leaves both families out of that scrape
// and logs it.
#pragma once

#include "rapport/module.h"

namespace rapport::webhooks {

// Declares both families and their collector on `registry`; `host`
// outlives the module's registrations.
void registerDeliveryMetrics(Host& host, Registry& registry);

}  // namespace rapport::webhooks
