// The three instruments of the registry: a counter, a gauge and a histogram
// of durations with fixed buckets. Each is a handful of atomics updated with
// relaxed ordering: recording never takes a lock, so request threads never
// wait for each other or for a scrape. A scrape reads the atomics one by one
// (a sample may be a few events behind another; Prometheus tolerates that).
//
// Threading: every member function is safe from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

namespace rapport::host::metrics {

class Counter {
 public:
  void inc(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// A value that goes up and down (sessions in use) or is set (a timestamp).
class Gauge {
 public:
  void set(std::int64_t v) noexcept { value_.store(v, std::memory_order_relaxed); }
  void add(std::int64_t n) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  std::int64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

// What a histogram holds at one moment: cumulative counts per upper bound
// (the last one is +Inf, so its count is the total), and the sum in seconds.
struct HistogramSnapshot {
  std::vector<double> bounds;             // seconds, ascending, without +Inf
  std::vector<std::uint64_t> cumulative;  // bounds.size() + 1 entries
  double sumSeconds = 0;
  std::uint64_t count() const { return cumulative.empty() ? 0 : cumulative.back(); }
};

// Durations in buckets fixed at construction. observe() finds the bucket
// with a short linear scan (a dozen bounds) and adds to it and to the sum
// (kept in nanoseconds, an integer atomic).
class Histogram {
 public:
  // `bounds`: upper bounds in seconds, ascending; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);

  void observe(std::chrono::nanoseconds duration) noexcept;
  HistogramSnapshot snapshot() const;

 private:
  std::vector<double> bounds_;
  std::vector<std::int64_t> boundsNanos_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // per bucket, not cumulative
  std::atomic<std::uint64_t> sumNanos_{0};
};

// Request latencies: from half a millisecond (a cached read) to 10 s.
const std::vector<double>& latencyBuckets();

}  // namespace rapport::host::metrics
