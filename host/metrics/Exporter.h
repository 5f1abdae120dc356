// Everything metrics.listen turns on, started by the server once it serves
// and dropped first when it stops: the host's families, the collectors of
// the front end's connections and of the webhook queue, and the listener.
// Unset metrics.listen: nothing at all (start() returns null); the
// instruments still count, at the cost of a few atomic adds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "http/server/ConnectionStats.h"
#include "metrics/MetricsListener.h"
#include "metrics/Registry.h"
#include "rapport/db.h"

namespace rapport::host::metrics {

class Exporter {
 public:
  // `connections`: the front end's counters (null: no listener, as in the
  // in-process harness). `webhookDb`: where the webhooks module keeps its
  // deliveries (null: the module is not enabled). Both must outlive the
  // exporter. Throws std::invalid_argument for a malformed address and
  // std::runtime_error when it cannot listen.
  static std::unique_ptr<Exporter> start(const std::string& listen,
                                         const ConnectionStats* connections,
                                         rapport::Queryable* webhookDb);
  ~Exporter();

  int port() const { return listener_->port(); }

 private:
  Exporter() = default;

  std::vector<std::unique_ptr<ScopedCollector>> collectors_;
  std::unique_ptr<MetricsListener> listener_;  // last: stops before the collectors go
};

}  // namespace rapport::host::metrics
