// The fan-out (registry.onEvent): every recorded event becomes one pending
// delivery per active webhook of the company subscribed to its type,
// written inside the emitting transaction, so the change, its event and its
// deliveries commit together or not at all (decisions §8, "nothing lost").
//
// Cost: one indexed SELECT (webhook_subscriptions' primary key, joined to
// the webhook) when the company has no subscriber, the common case; one
// INSERT per delivery otherwise. A transaction that wrote deliveries wakes
// the delivery workers after its commit.
#pragma once

#include <cstddef>

#include "delivery/Attempt.h"
#include "rapport/events.h"
#include "rapport/jobs.h"

namespace rapport::webhooks {

// webhooks.max_payload_bytes by default: the largest delivery body.
inline constexpr std::size_t kDefaultMaxPayloadBytes = 256 * 1024;

// `event` as a new pending delivery to `webhookId`, due at `due`: a fresh
// envelope id, the event's data as recorded (the fan-out, and a backfill or
// a replay of logged events, write the same delivery). An envelope longer
// than `maxPayloadBytes` is replaced by the thin one (WebhooksJson.h
// thinEnvelopeJson: data {id} and "data_omitted": true), so no delivery body
// exceeds the cap (docs/modules/webhooks.md "Payload size").
NewDelivery eventDelivery(const std::string& webhookId, const Event& event, std::int64_t due,
                          std::size_t maxPayloadBytes);

class FanOut {
 public:
  // `deliverer` outlives this object (its schedule is read from start() on,
  // when events begin). `maxPayloadBytes`: webhooks.max_payload_bytes.
  FanOut(const Deliverer& deliverer, std::size_t maxPayloadBytes)
      : deliverer_(deliverer), maxPayloadBytes_(maxPayloadBytes) {}

  // The handle of the delivery job (Registry::job), set during setup.
  void setWorkers(JobHandle workers) { workers_ = std::move(workers); }

  // The event listener.
  void operator()(Tx& tx, const Event& event) const;

 private:
  const Deliverer& deliverer_;
  std::size_t maxPayloadBytes_;
  JobHandle workers_;
};

}  // namespace rapport::webhooks
