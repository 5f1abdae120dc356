// GET /v1/events (docs/events.md "Reading the log"): a company's event log
// for its owners and admins, in sequence order after a cursor, filtered by
// type. A host route, registered with its description and the "Event"
// schema under the tag "events".
#pragma once

#include "rapport/module.h"

namespace rapport::host {

// `db`, `catalogue` and `log` outlive the registered route.
void registerEventsRoute(rapport::Registry& registry, rapport::Database& db,
                         const rapport::EventCatalogue& catalogue, const rapport::EventLog& log);

}  // namespace rapport::host
