// The Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/):
//
//   # HELP rapport_http_requests_total Requests answered, by route template, method and status.
//   # TYPE rapport_http_requests_total counter
//   rapport_http_requests_total{route="/v1/contacts/{id}",method="GET",status="200"} 42
//
// Each family is written once: its HELP and TYPE lines, then its samples.
// HELP text escapes '\' and newline; label values escape '\', '"' and
// newline; numbers are integers when whole, else the shortest decimal that
// reads back the same, with +Inf, -Inf and NaN spelled as Prometheus does.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/Instruments.h"

namespace rapport::host::metrics {

using Label = std::pair<std::string_view, std::string_view>;
using Labels = std::vector<Label>;

enum class Type { Counter, Gauge, Histogram };

class TextWriter {
 public:
  // Starts a family: its # HELP and # TYPE lines.
  void family(std::string_view name, std::string_view help, Type type);
  // One sample line: name{labels} value.
  void sample(std::string_view name, const Labels& labels, double value);
  void sample(std::string_view name, const Labels& labels, std::uint64_t value);
  void sample(std::string_view name, const Labels& labels, std::int64_t value);
  // A histogram's series under `name`: name_bucket{labels...,le="..."}
  // per bound and le="+Inf", then name_sum and name_count.
  void histogram(std::string_view name, const Labels& labels, const HistogramSnapshot& snapshot);

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void seriesName(std::string_view name, const Labels& labels, const Label* extra = nullptr);

  std::string out_;
};

// Exposed for the tests: the escapings and the number spelling above.
std::string escapeHelp(std::string_view text);
std::string escapeLabelValue(std::string_view value);
std::string formatNumber(double value);

}  // namespace rapport::host::metrics
