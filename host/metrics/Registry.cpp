#include "metrics/Registry.h"

namespace rapport::host::metrics {

Registry::Id Registry::add(Collector collector) {
  std::lock_guard lock(mutex_);
  const Id id = next_++;
  collectors_.emplace(id, std::move(collector));
  return id;
}

void Registry::remove(Id id) {
  std::lock_guard lock(mutex_);
  collectors_.erase(id);
}

std::string Registry::render() const {
  TextWriter out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, collect] : collectors_) collect(out);
  return out.take();
}

Registry& registry() {
  // Never destroyed: threads that record or scrape may outlive static
  // destruction at exit.
  static auto* instance = new Registry;
  return *instance;
}

}  // namespace rapport::host::metrics
