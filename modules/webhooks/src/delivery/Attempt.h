// Attempts of deliveries, from claim to record (decisions §8): the worker's
// batches, a ping and a manual retry all go through Deliverer::deliver.
//
// The order is always claim (a lease, in one statement), send (HTTPS, never
// inside a transaction: on SQLite it would hold the writer lock for the
// receiver's time), record (one transaction for the whole batch, each write
// guarded by the lease). A crash anywhere leaves the delivery pending with a
// lease that runs out, and a worker takes it again: at least once.
//
// Threading: one Deliverer is shared by the workers and the request threads
// (ping, retry); after start() it is read-only, and HttpsSender is
// thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "DeliveryStore.h"
#include "delivery/HttpsSender.h"
#include "delivery/RetrySchedule.h"
#include "delivery/TargetCircuit.h"
#include "rapport/module.h"

namespace rapport::webhooks {

// What the operator configured (WebhooksModule::start() reads it).
struct DeliverySettings {
  RetrySchedule schedule;
  std::chrono::seconds timeout{10};
  HttpsSender::Options sender;
  // The targets' circuit breaker (TargetCircuit.h).
  int circuitTimeouts = 3;
  std::chrono::seconds circuitOpen{60};
};

// A lease about to be taken: a fresh random token and when it ends.
struct Lease {
  std::string token;
  std::int64_t until = 0;  // microseconds since the epoch
};

class Deliverer {
 public:
  enum class Mode {
    Scheduled,  // a worker's batch: a failed attempt is scheduled again, or failed after the last
    Final,      // a ping or a manual retry: the attempt ends the delivery, success or failed
  };

  // `host` outlives this object.
  explicit Deliverer(Host& host);
  ~Deliverer();
  Deliverer(const Deliverer&) = delete;
  Deliverer& operator=(const Deliverer&) = delete;

  // Builds the sender; before it, nothing is sent (started() is false).
  void start(DeliverySettings settings);
  // Called after an attempt's result is recorded when the receiver answered
  // 410 Gone (the module disables the webhook, health/Disabling.h).
  using GoneHandler =
      std::function<void(const std::string& companyId, const std::string& webhookId)>;
  void setGoneHandler(GoneHandler handler) { gone_ = std::move(handler); }
  bool started() const { return sender_ != nullptr; }

  const RetrySchedule& schedule() const { return settings_.schedule; }
  std::chrono::seconds timeout() const { return settings_.timeout; }
  // How long a claim holds a delivery: two attempts' time-out plus 5 s to record.
  std::chrono::microseconds leaseDuration() const;
  // A lease for a claim made at `now`.
  Lease newLease(std::int64_t now) const;

  // Sends each delivery of `batch` (claimed by the caller) in turn and
  // records the results in one transaction. Before each send it checks the
  // attempt can still end and be recorded inside the lease; the ones that
  // cannot are released unsent (a worker takes them again). In Scheduled
  // mode a delivery of a webhook paused meanwhile is released unscheduled;
  // one of a deleted webhook is deleted. Returns, in batch order, the
  // recorded delivery (delivery_store::record's row) or nullopt when nothing
  // was recorded for it. In Scheduled mode a delivery to a webhook whose
  // circuit is open is deferred to its end unsent (TargetCircuit.h); every
  // attempt counts toward its webhook's circuit.
  std::vector<std::optional<Row>> deliver(const std::vector<ClaimedDelivery>& batch, Mode mode);

 private:
  struct Target;
  std::optional<Target> loadTarget(const ClaimedDelivery& delivery);
  AttemptRecord outcome(const ClaimedDelivery& delivery, const AttemptResult& result,
                        Mode mode) const;
  // Counts the attempt toward its webhook's circuit; when that opens it,
  // defers the webhook's other due deliveries.
  void noteCircuit(const ClaimedDelivery& delivery, const AttemptResult& result);

  Host& host_;
  DeliverySettings settings_;
  std::unique_ptr<HttpsSender> sender_;
  std::unique_ptr<TargetCircuits> circuits_;
  GoneHandler gone_;
};

// `bytes` as valid UTF-8 of at most `maxBytes` bytes: invalid sequences and
// NUL characters become U+FFFD, a character cut at the end is dropped (a
// receiver's answer, stored in a text column).
std::string storableText(std::string_view bytes, std::size_t maxBytes);

}  // namespace rapport::webhooks
