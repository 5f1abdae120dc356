// POST /webhooks/{id}/replay (docs/events.md "Replaying to a webhook"): sends
// a webhook again the company's logged events of its types, after a cursor
// (`after`, the log's sequence, as GET /v1/events pages) or from a time
// (`since`), optionally narrowed to some of its types: one NEW delivery per
// event, written as the fan-out writes a fresh event's (FanOut.h
// eventDelivery: a new delivery and envelope id, the event's data as
// logged, signed when sent), due in the log's order, all in one
// transaction. At most kMaxReplay events per call.
//
// Answers 202 {"replayed": N, "from_sequence": a, "to_sequence": b} (null
// sequences when nothing matched); 409 for an inactive webhook; 410 when the
// retention already removed events the replay asks for; 422 for a body
// without exactly one of since and after, a type the webhook does not
// receive, or more than kMaxReplay matching events.
#pragma once

#include <cstddef>

#include "FanOut.h"
#include "delivery/Attempt.h"
#include "rapport/http.h"
#include "rapport/jobs.h"
#include "rapport/module.h"
#include "replay/Redelivery.h"

namespace rapport::webhooks {

class ReplayRoute {
 public:
  static constexpr std::size_t kMaxReplay = static_cast<std::size_t>(kMaxRedelivery);

  // `host` and `deliverer` outlive this object.
  ReplayRoute(Host& host, const Deliverer& deliverer) : host_(host), deliverer_(deliverer) {}

  // The delivery job's handle: a replay wakes the workers at commit.
  void setWorkers(JobHandle workers) { workers_ = std::move(workers); }
  // webhooks.max_payload_bytes: the cap on each new delivery's body.
  void setMaxPayloadBytes(std::size_t bytes) { maxPayloadBytes_ = bytes; }

  Response operator()(const Request& request) const;

 private:
  Host& host_;
  const Deliverer& deliverer_;
  JobHandle workers_;
  std::size_t maxPayloadBytes_ = kDefaultMaxPayloadBytes;
};

// The route's description for the API document.
void describeReplayRoute(Registry& registry);

}  // namespace rapport::webhooks
