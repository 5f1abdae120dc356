#include "metrics/Exporter.h"

#include "metrics/Metrics.h"
#include "metrics/Sources.h"

namespace rapport::host::metrics {

std::unique_ptr<Exporter> Exporter::start(const std::string& listen,
                                          const ConnectionStats* connections,
                                          const ModuleMetrics* modules) {
  if (listen.empty()) return nullptr;
  const ListenAddress address = parseListenAddress(listen);
  registerHostMetrics();
  std::unique_ptr<Exporter> exporter(new Exporter);
  if (connections) {
    exporter->collectors_.push_back(
        std::make_unique<ScopedCollector>(registry(), connectionCollector(*connections)));
  }
  if (modules && !modules->empty()) {
    exporter->collectors_.push_back(
        std::make_unique<ScopedCollector>(registry(), modules->collector()));
  }
  exporter->listener_ = std::make_unique<MetricsListener>(address, registry());
  return exporter;
}

Exporter::~Exporter() {
  listener_.reset();  // no scrape runs once it is gone; then the collectors go
}

}  // namespace rapport::host::metrics
