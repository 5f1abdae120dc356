#include "metrics/ModuleMetrics.h"

#include <map>
#include <stdexcept>

#include "log/Log.h"

namespace rapport::host::metrics {
namespace {

bool nameChar(char c, bool first, bool colon) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return letter || (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

// Prometheus: metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
// [a-zA-Z_][a-zA-Z0-9_]*.
bool validName(const std::string& name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!nameChar(name[i], i == 0, colon)) return false;
  }
  return true;
}

Type typeOf(rapport::MetricType type) {
  return type == rapport::MetricType::Counter ? Type::Counter : Type::Gauge;
}

}  // namespace

void ModuleMetrics::add(const std::string& module, std::vector<rapport::MetricFamily> families,
                        rapport::MetricCollector collect) {
  const auto refuse = [&](const std::string& why) {
    throw std::logic_error("module '" + module + "': metrics: " + why);
  };
  if (!collect) refuse("no collector");
  std::set<std::string> declared;
  for (const rapport::MetricFamily& family : families) {
    if (!validName(family.name, true) || family.name.rfind("rapport_", 0) != 0) {
      refuse("family name must match [a-zA-Z_:][a-zA-Z0-9_:]* and start with 'rapport_': '" +
             family.name + "'");
    }
    if (family.help.empty()) refuse("family '" + family.name + "' has no help");
    if (names_.count(family.name) > 0 || !declared.insert(family.name).second) {
      refuse("family '" + family.name + "' is declared already");
    }
    for (const std::string& label : family.labels) {
      if (!validName(label, false) || label.rfind("__", 0) == 0) {
        refuse("family '" + family.name + "': invalid label name '" + label + "'");
      }
    }
  }
  names_.insert(declared.begin(), declared.end());
  sources_.push_back({module, std::move(families), std::move(collect)});
}

Registry::Collector ModuleMetrics::collector() const {
  return [this](TextWriter& out) { render(out); };
}

void ModuleMetrics::render(TextWriter& out) const {
  for (const Source& source : sources_) {
    std::vector<rapport::MetricSample> samples;
    try {
      samples = source.collect();
    } catch (const std::exception& e) {
      log::warn("metrics: a module's collector failed",
                {{"module", source.module}, {"error", e.what()}});
      continue;
    }
    // The samples of each family, in the order the collector gave them.
    std::map<std::string, std::vector<const rapport::MetricSample*>> byFamily;
    for (const rapport::MetricSample& sample : samples) byFamily[sample.family].push_back(&sample);
    for (const rapport::MetricFamily& family : source.families) {
      const auto found = byFamily.find(family.name);
      if (found == byFamily.end()) continue;
      bool started = false;
      for (const rapport::MetricSample* sample : found->second) {
        if (sample->labelValues.size() != family.labels.size()) {
          log::warn("metrics: a sample with the wrong number of labels dropped",
                    {{"module", source.module}, {"family", family.name}});
          continue;
        }
        if (!started) {
          out.family(family.name, family.help, typeOf(family.type));
          started = true;
        }
        Labels labels;
        for (std::size_t i = 0; i < family.labels.size(); ++i) {
          labels.emplace_back(family.labels[i], sample->labelValues[i]);
        }
        out.sample(family.name, labels, sample->value);
      }
      byFamily.erase(found);
    }
    for (const auto& [name, unused] : byFamily) {
      log::warn("metrics: samples of an undeclared family dropped",
                {{"module", source.module}, {"family", name}});
    }
  }
}

}  // namespace rapport::host::metrics
