// The families modules report themselves (SDK rapport/metrics.h,
// Registry::metrics): checked when a module declares them, rendered at each
// scrape by the collector this object gives the Exporter. The host names no
// module table: a module's gauges are its own query.
//
// Threading: add() during the modules' setup (one thread); collector()'s
// function from the scraping thread afterwards (the Registry runs
// collectors one at a time).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "metrics/Registry.h"
#include "rapport/metrics.h"

namespace rapport::host::metrics {

class ModuleMetrics {
 public:
  // Declares `families` of `module`, read by `collect` at each scrape.
  // Throws std::logic_error (naming the module) for a name or label
  // rapport/metrics.h refuses, or a family declared already.
  void add(const std::string& module, std::vector<rapport::MetricFamily> families,
           rapport::MetricCollector collect);

  bool empty() const { return sources_.empty(); }

  // What a scrape writes: each source's families in declaration order, each
  // with its samples; a source whose collector throws is left out (logged).
  // `this` must outlive the collector.
  Registry::Collector collector() const;

 private:
  struct Source {
    std::string module;
    std::vector<rapport::MetricFamily> families;
    rapport::MetricCollector collect;
  };
  void render(TextWriter& out) const;

  std::vector<Source> sources_;
  std::set<std::string> names_;
};

}  // namespace rapport::host::metrics
