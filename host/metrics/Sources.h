// Collectors of parts that live shorter than the process, added by the
// server while they run (app/Server.cpp holds them in ScopedCollectors).
#pragma once

#include "http/server/ConnectionStats.h"
#include "metrics/Registry.h"
#include "rapport/db.h"

namespace rapport::host::metrics {

// The HTTP front end's connections (http/server/ConnectionStats.h): open
// now, accepted, and closed or refused by which limit or deadline.
Registry::Collector connectionCollector(const ConnectionStats& stats);

// The webhooks module's outbox, read at scrape time with one statement:
// deliveries by status (pending, success, failed; finished ones are kept
// webhooks.delivery_retention_days) and the age of the oldest pending one.
// The table is the module's; register only when the module is enabled. A
// failing query leaves both families out of that scrape (and is logged).
Registry::Collector webhookQueueCollector(rapport::Queryable& db);

}  // namespace rapport::host::metrics
