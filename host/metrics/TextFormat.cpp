#include "metrics/TextFormat.h"

#include <charconv>
#include <cmath>

namespace rapport::host::metrics {
namespace {

std::string_view typeName(Type type) {
  switch (type) {
    case Type::Counter:
      return "counter";
    case Type::Gauge:
      return "gauge";
    case Type::Histogram:
      return "histogram";
  }
  return "untyped";
}

template <class Integer>
void appendInteger(std::string& out, Integer value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

// The format's escapes: backslash and line feed everywhere, the double
// quote inside label values only.
std::string escaped(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string escapeHelp(std::string_view text) {
  return escaped(text, false);
}

std::string escapeLabelValue(std::string_view value) {
  return escaped(value, true);
}

std::string formatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Plain decimals where they stay short ("0.0005", not "5e-04", in le
  // labels people read), the shortest exponent form beyond.
  const double magnitude = std::fabs(value);
  const bool plain = magnitude == 0 || (magnitude >= 1e-6 && magnitude < 1e15);
  char buffer[64];
  const auto result =
      plain ? std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed)
            : std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

void TextWriter::family(std::string_view name, std::string_view help, Type type) {
  out_.append("# HELP ").append(name).push_back(' ');
  out_.append(escapeHelp(help)).push_back('\n');
  out_.append("# TYPE ").append(name).push_back(' ');
  out_.append(typeName(type)).push_back('\n');
}

void TextWriter::seriesName(std::string_view name, const Labels& labels, const Label* extra) {
  out_.append(name);
  if (labels.empty() && !extra) return;
  out_.push_back('{');
  bool first = true;
  const auto append = [&](const Label& label) {
    if (!first) out_.push_back(',');
    first = false;
    out_.append(label.first).append("=\"").append(escapeLabelValue(label.second)).push_back('"');
  };
  for (const auto& label : labels) append(label);
  if (extra) append(*extra);
  out_.push_back('}');
}

void TextWriter::sample(std::string_view name, const Labels& labels, double value) {
  seriesName(name, labels);
  out_.push_back(' ');
  out_.append(formatNumber(value)).push_back('\n');
}

void TextWriter::sample(std::string_view name, const Labels& labels, std::uint64_t value) {
  seriesName(name, labels);
  out_.push_back(' ');
  appendInteger(out_, value);
  out_.push_back('\n');
}

void TextWriter::sample(std::string_view name, const Labels& labels, std::int64_t value) {
  seriesName(name, labels);
  out_.push_back(' ');
  appendInteger(out_, value);
  out_.push_back('\n');
}

void TextWriter::histogram(std::string_view name, const Labels& labels,
                           const HistogramSnapshot& snapshot) {
  const std::string bucket = std::string(name) + "_bucket";
  for (std::size_t i = 0; i < snapshot.cumulative.size(); ++i) {
    const std::string le = i < snapshot.bounds.size() ? formatNumber(snapshot.bounds[i]) : "+Inf";
    const Label leLabel{"le", le};
    seriesName(bucket, labels, &leLabel);
    out_.push_back(' ');
    appendInteger(out_, snapshot.cumulative[i]);
    out_.push_back('\n');
  }
  sample(std::string(name) + "_sum", labels, snapshot.sumSeconds);
  sample(std::string(name) + "_count", labels, snapshot.count());
}

}  // namespace rapport::host::metrics
