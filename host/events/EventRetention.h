// The event log's retention (docs/events.md): a host job that removes events
// older than `events.retention_days` (default 30), hourly, in batches so a
// long backlog never holds the SQLite writer for long.
#pragma once

#include "rapport/db.h"
#include "rapport/jobs.h"

namespace rapport::host {

// Throws std::invalid_argument when `retentionDays` is below 1.
rapport::Job eventRetentionJob(rapport::Database& db, int retentionDays);

}  // namespace rapport::host
