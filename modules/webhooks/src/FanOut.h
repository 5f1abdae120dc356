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

#include "delivery/Attempt.h"
#include "rapport/events.h"
#include "rapport/jobs.h"

namespace rapport::webhooks {

// `event` as a new pending delivery to `webhookId`, due at `due`: a fresh
// envelope id, the event's data as recorded (the fan-out, and a backfill of
// what a disabled webhook missed, write the same delivery).
NewDelivery eventDelivery(const std::string& webhookId, const Event& event, std::int64_t due);

class FanOut {
 public:
  // `deliverer` outlives this object (its schedule is read from start() on,
  // when events begin).
  explicit FanOut(const Deliverer& deliverer) : deliverer_(deliverer) {}

  // The handle of the delivery job (Registry::job), set during setup.
  void setWorkers(JobHandle workers) { workers_ = std::move(workers); }

  // The event listener.
  void operator()(Tx& tx, const Event& event) const;

 private:
  const Deliverer& deliverer_;
  JobHandle workers_;
};

}  // namespace rapport::webhooks
