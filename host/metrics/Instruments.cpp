#include "metrics/Instruments.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rapport::host::metrics {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {
  if (!std::is_sorted(bounds_.begin(), bounds_.end()) ||
      std::adjacent_find(bounds_.begin(), bounds_.end()) != bounds_.end()) {
    throw std::invalid_argument("histogram bounds must be strictly ascending");
  }
  boundsNanos_.reserve(bounds_.size());
  for (double bound : bounds_) {
    boundsNanos_.push_back(static_cast<std::int64_t>(std::llround(bound * 1e9)));
  }
}

void Histogram::observe(std::chrono::nanoseconds duration) noexcept {
  const std::int64_t nanos = std::max<std::int64_t>(0, duration.count());
  std::size_t bucket = 0;
  while (bucket < boundsNanos_.size() && nanos > boundsNanos_[bucket]) ++bucket;
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  sumNanos_.fetch_add(static_cast<std::uint64_t>(nanos), std::memory_order_relaxed);
}

HistogramSnapshot Histogram::snapshot() const {
  HistogramSnapshot s;
  s.bounds = bounds_;
  s.cumulative.reserve(bounds_.size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.sumSeconds = static_cast<double>(sumNanos_.load(std::memory_order_relaxed)) / 1e9;
  return s;
}

const std::vector<double>& latencyBuckets() {
  static const std::vector<double> buckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                           0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  return buckets;
}

}  // namespace rapport::host::metrics
