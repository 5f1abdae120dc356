// POST /webhooks/{id}/enable (docs/modules/webhooks.md, "Self-healing"):
// makes a webhook active again, clears its failing streak and disable
// marks, resumes its pending deliveries and, with {"backfill": true}, writes
// one new delivery for every event it subscribes to that the company's
// event log recorded from the moment it was disabled (disabled_at; for a
// webhook deactivated by PATCH, its last change, updated_at) up to now, in
// the log's order (Host::eventLog). All in one transaction.
//
// Answers 200 {"webhook": <the webhook>, "backfilled": N, "truncated": bool}:
// truncated is true when the retention (events.retention_days) already
// removed some of the events missed; what is kept is delivered all the same.
// Enabling an active webhook answers 200 with backfilled 0 (nothing
// changes); asking it for a backfill is 409 "The webhook is already enabled."
#pragma once

#include "FanOut.h"
#include "rapport/http.h"
#include "rapport/jobs.h"
#include "rapport/module.h"

namespace rapport::webhooks {

class EnableRoute {
 public:
  // `host` outlives this object.
  explicit EnableRoute(Host& host) : host_(host) {}

  // The delivery job's handle: an enabled webhook wakes the workers.
  void setWorkers(JobHandle workers) { workers_ = std::move(workers); }
  // webhooks.max_payload_bytes: the cap on each new delivery's body.
  void setMaxPayloadBytes(std::size_t bytes) { maxPayloadBytes_ = bytes; }

  Response operator()(const Request& request) const;

 private:
  Host& host_;
  JobHandle workers_;
  std::size_t maxPayloadBytes_ = kDefaultMaxPayloadBytes;
};

// The route's description for the API document.
void describeEnableRoute(Registry& registry);

}  // namespace rapport::webhooks
