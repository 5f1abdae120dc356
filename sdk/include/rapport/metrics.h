// Metrics a module reports itself (since 6.2): families it declares once in
// setup() with Registry::metrics, and a collector the host calls at each
// scrape of GET /metrics (metrics.listen; docs/operations.md "Metrics"). The
// host writes them in the Prometheus text format after its own families, so
// it never needs to know a module's tables.
//
//   registry.metrics(
//       {{.name = "rapport_tickets_open", .help = "Open tickets.", .labels = {"priority"}}},
//       [this] {
//         std::vector<MetricSample> samples;
//         for (const Row& row : host_->db().query("SELECT priority, COUNT(*) AS n ..."))
//           samples.push_back({.family = "rapport_tickets_open",
//                              .labelValues = {row.str("priority")},
//                              .value = static_cast<double>(row.i64("n"))});
//         return samples;
//       });
//
// Rules, checked by Registry::metrics (std::logic_error, start-up stops):
// a family name matches [a-zA-Z_:][a-zA-Z0-9_:]* and starts with "rapport_",
// and no other module declared it; label names match [a-zA-Z_][a-zA-Z0-9_]*
// and do not start with "__"; the help is not empty.
//
// At a scrape the collector runs on the scraping thread, one collector at a
// time, while the module is started (never before start(), never after
// stop()). Keep it cheap: a scrape waits for it (one indexed query, or
// counters the module keeps itself). Its samples are written under their
// family, in the order given; a family without samples is left out of that
// scrape; a sample naming an undeclared family, or with another number of
// label values than its family has labels, is dropped (and logged). A
// collector that throws leaves all its families out of that scrape (logged
// as a warning with the module's name); the next scrape calls it again.
// Label values come from a bounded set (statuses, kinds), never from
// clients: each combination is a series the scraper keeps.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rapport {

enum class MetricType { Gauge, Counter };

// A family of series: one name, its # HELP and # TYPE lines.
struct MetricFamily {
  std::string name = {};  // "rapport_webhook_deliveries"
  std::string help = {};  // one line, for # HELP
  MetricType type = MetricType::Gauge;
  std::vector<std::string> labels = {};  // label names, in order: {"status"}
};

// One value of a family at this scrape.
struct MetricSample {
  std::string family = {};                    // a declared MetricFamily::name
  std::vector<std::string> labelValues = {};  // one per label of the family, in order
  double value = 0;
};

// Called at each scrape (see above).
using MetricCollector = std::function<std::vector<MetricSample>()>;

}  // namespace rapport
