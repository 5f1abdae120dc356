// What a scrape collects: a list of collectors, each writing one or more
// families into the text format. Instruments record on their own (lock-free);
// the registry only knows how to read them, at scrape time. Parts that live
// shorter than the process (the HTTP front end, the database) add a
// collector when they start and remove it before they go.
//
// Threading: add, remove and render from any thread; render runs the
// collectors one at a time (two scrapes at once take turns).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "metrics/TextFormat.h"

namespace rapport::host::metrics {

class Registry {
 public:
  using Collector = std::function<void(TextWriter&)>;
  using Id = std::uint64_t;

  // Collectors run in the order they were added.
  Id add(Collector collector);
  void remove(Id id);
  // Every collector's families, in the Prometheus text format.
  std::string render() const;

 private:
  // render() holds it while collecting, so remove() returns only once no
  // scrape runs the removed collector any more.
  mutable std::mutex mutex_;
  std::map<Id, Collector> collectors_;
  Id next_ = 1;
};

// The process's registry: what GET /metrics renders.
Registry& registry();

// A collector added for the life of this object (removed by its destructor).
class ScopedCollector {
 public:
  ScopedCollector(Registry& registry, Registry::Collector collector)
      : registry_(registry), id_(registry.add(std::move(collector))) {}
  ~ScopedCollector() { registry_.remove(id_); }
  ScopedCollector(const ScopedCollector&) = delete;
  ScopedCollector& operator=(const ScopedCollector&) = delete;

 private:
  Registry& registry_;
  Registry::Id id_;
};

}  // namespace rapport::host::metrics
