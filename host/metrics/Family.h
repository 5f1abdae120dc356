// A labelled family of one instrument: one metric per combination of label
// values, created on first use and kept for the life of the family (so a
// reference from with() stays valid; callers on hot paths keep it).
//
//   Family<Counter> runs("rapport_job_runs_total", "Job runs.", {"job", "outcome"});
//   Counter& ok = runs.with({"webhooks.deliver", "ok"});  // once
//   ok.inc();                                             // lock-free
//
// with() takes the family's mutex: call it once per label combination and
// keep the reference, not once per event. Label values must come from a
// bounded set (route templates, job names, statuses), never from clients.
//
// Threading: every member function is safe from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "metrics/TextFormat.h"

namespace rapport::host::metrics {

template <class Metric>
class Family {
 public:
  using Make = std::function<std::unique_ptr<Metric>()>;

  Family(
      std::string name, std::string help, std::vector<std::string> labelNames,
      Make make = [] { return std::make_unique<Metric>(); })
      : name_(std::move(name)),
        help_(std::move(help)),
        labelNames_(std::move(labelNames)),
        make_(std::move(make)) {}

  Metric& with(const std::vector<std::string>& labelValues) {
    std::lock_guard lock(mutex_);
    auto& slot = metrics_[labelValues];
    if (!slot) slot = make_();
    return *slot;
  }

  const std::string& name() const { return name_; }

  // The family's HELP, TYPE and one sample (or histogram) per combination,
  // in label order. Nothing at all before the first with(): an empty family
  // would be a TYPE line without samples.
  void write(TextWriter& out, Type type) const {
    std::lock_guard lock(mutex_);
    if (metrics_.empty()) return;
    out.family(name_, help_, type);
    for (const auto& [values, metric] : metrics_) {
      Labels labels;
      for (std::size_t i = 0; i < labelNames_.size() && i < values.size(); ++i) {
        labels.emplace_back(labelNames_[i], values[i]);
      }
      writeOne(out, labels, *metric);
    }
  }

 private:
  void writeOne(TextWriter& out, const Labels& labels, const Counter& c) const {
    out.sample(name_, labels, c.value());
  }
  void writeOne(TextWriter& out, const Labels& labels, const Gauge& g) const {
    out.sample(name_, labels, g.value());
  }
  void writeOne(TextWriter& out, const Labels& labels, const Histogram& h) const {
    out.histogram(name_, labels, h.snapshot());
  }

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> labelNames_;
  const Make make_;
  mutable std::mutex mutex_;
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> metrics_;
};

}  // namespace rapport::host::metrics
