// Everything metrics.listen turns on, started by the server once it serves
// and dropped first when it stops: the host's families, the collectors of
// the front end's connections and of the modules' own families
// (ModuleMetrics), and the listener.
// Unset metrics.listen: nothing at all (start() returns null); the
// instruments still count, at the cost of a few atomic adds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "http/server/ConnectionStats.h"
#include "metrics/MetricsListener.h"
#include "metrics/ModuleMetrics.h"
#include "metrics/Registry.h"

namespace rapport::host::metrics {

class Exporter {
 public:
  // `connections`: the front end's counters (null: no listener, as in the
  // in-process harness). `modules`: what the modules declared with
  // Registry::metrics (null or empty: none). Both must outlive the exporter,
  // and the modules' collectors must work until it is gone (the server drops
  // it before it stops the modules). Throws std::invalid_argument for a malformed address and
  // std::runtime_error when it cannot listen.
  static std::unique_ptr<Exporter> start(const std::string& listen,
                                         const ConnectionStats* connections,
                                         const ModuleMetrics* modules);
  ~Exporter();

  int port() const { return listener_->port(); }

 private:
  Exporter() = default;

  std::vector<std::unique_ptr<ScopedCollector>> collectors_;
  std::unique_ptr<MetricsListener> listener_;  // last: stops before the collectors go
};

}  // namespace rapport::host::metrics
