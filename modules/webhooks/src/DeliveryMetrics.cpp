#include "DeliveryMetrics.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

constexpr std::string_view kDeliveries = "rapport_webhook_deliveries";
constexpr std::string_view kOldestPending = "rapport_webhook_oldest_pending_age_seconds";

// Reads across companies on purpose (an operator's view), one grouped
// statement per scrape.
std::vector<MetricSample> deliverySamples(Queryable& db) {
  std::array<std::pair<std::string_view, std::int64_t>, 3> counts{
      {{"pending", 0}, {"success", 0}, {"failed", 0}}};
  std::int64_t oldestPending = 0;  // created_at, microseconds; 0: none pending
  const Result rows = db.query(
      "SELECT status, COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_deliveries "
      "GROUP BY status");
  for (const Row& row : rows) {
    const std::string status = row.str("status");
    for (auto& [name, count] : counts) {
      if (name == status) count = row["n"].asInt();
    }
    if (status == "pending" && !row.isNull("oldest")) oldestPending = row["oldest"].asInt();
  }
  std::vector<MetricSample> samples;
  for (const auto& [name, count] : counts) {
    samples.push_back({.family = std::string(kDeliveries),
                       .labelValues = {std::string(name)},
                       .value = static_cast<double>(count)});
  }
  const double age =
      oldestPending == 0
          ? 0.0
          : static_cast<double>(std::max<std::int64_t>(0, nowMicros() - oldestPending)) / 1e6;
  samples.push_back({.family = std::string(kOldestPending), .labelValues = {}, .value = age});
  return samples;
}

}  // namespace

void registerDeliveryMetrics(Host& host, Registry& registry) {
  registry.metrics({{.name = std::string(kDeliveries),
                     .help = "Webhook deliveries recorded, by status (finished ones are kept "
                             "webhooks.delivery_retention_days).",
                     .type = MetricType::Gauge,
                     .labels = {"status"}},
                    {.name = std::string(kOldestPending),
                     .help = "Age of the oldest pending webhook delivery (0 when none is pending).",
                     .type = MetricType::Gauge,
                     .labels = {}}},
                   [&host] { return deliverySamples(host.db()); });
}

}  // namespace rapport::webhooks
