#include "metrics/Sources.h"

#include <array>
#include <cstdint>
#include <string>

#include "log/Log.h"
#include "rapport/time.h"

namespace rapport::host::metrics {
namespace {

constexpr std::string_view kClosed = "rapport_http_connections_closed_total";
constexpr std::string_view kRefused = "rapport_http_connections_refused_total";

void counter(TextWriter& out, std::string_view name, std::string_view help,
             const std::atomic<std::uint64_t>& value) {
  out.family(name, help, Type::Counter);
  out.sample(name, {}, value.load());
}

}  // namespace

Registry::Collector connectionCollector(const ConnectionStats& stats) {
  return [&stats](TextWriter& out) {
    out.family("rapport_http_connections_open", "Client connections open now.", Type::Gauge);
    out.sample("rapport_http_connections_open", {}, stats.open.load());
    counter(out, "rapport_http_connections_accepted_total", "Client connections accepted.",
            stats.accepted);
    out.family(kClosed, "Connections the server closed, by the limit or deadline that ended them.",
               Type::Counter);
    out.sample(kClosed, {{"reason", "idle"}}, stats.idleClosed.load());
    out.sample(kClosed, {{"reason", "header_timeout"}}, stats.headerTimeouts.load());
    out.sample(kClosed, {{"reason", "body_timeout"}}, stats.bodyTimeouts.load());
    out.sample(kClosed, {{"reason", "send_timeout"}}, stats.sendTimeouts.load());
    out.sample(kClosed, {{"reason", "shed"}}, stats.shed.load());
    out.sample(kClosed, {{"reason", "shed_slow_body"}}, stats.shedSlowBodies.load());
    out.family(kRefused,
               "Connections or requests refused with 503, by the limit that refused them.",
               Type::Counter);
    out.sample(kRefused, {{"reason", "max_connections"}}, stats.refusedFull.load());
    out.sample(kRefused, {{"reason", "max_connections_per_address"}},
               stats.refusedPerAddress.load());
    out.sample(kRefused, {{"reason", "max_queued"}}, stats.refusedBusy.load());
    counter(out, "rapport_http_accept_failures_total",
            "accept() failures (out of file descriptors, ...).", stats.acceptFailures);
  };
}

Registry::Collector webhookQueueCollector(rapport::Queryable& db) {
  return [&db](TextWriter& out) {
    std::array<std::pair<std::string_view, std::int64_t>, 3> counts{
        {{"pending", 0}, {"success", 0}, {"failed", 0}}};
    std::int64_t oldestPending = 0;  // created_at, microseconds; 0: none pending
    try {
      const rapport::Result rows = db.query(
          "SELECT status, COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_deliveries "
          "GROUP BY status");
      for (const auto& row : rows) {
        const std::string status = row.str("status");
        for (auto& [name, count] : counts) {
          if (name == status) count = row["n"].asInt();
        }
        if (status == "pending" && !row.isNull("oldest")) oldestPending = row["oldest"].asInt();
      }
    } catch (const std::exception& e) {
      log::warn("metrics: webhook deliveries not read", {{"error", e.what()}});
      return;
    }
    out.family("rapport_webhook_deliveries",
               "Webhook deliveries recorded, by status (finished ones are kept "
               "webhooks.delivery_retention_days).",
               Type::Gauge);
    for (const auto& [name, count] : counts) {
      out.sample("rapport_webhook_deliveries", {{"status", name}}, count);
    }
    const double age =
        oldestPending == 0
            ? 0.0
            : static_cast<double>(std::max<std::int64_t>(0, rapport::nowMicros() - oldestPending)) /
                  1e6;
    out.family("rapport_webhook_oldest_pending_age_seconds",
               "Age of the oldest pending webhook delivery (0 when none is pending).", Type::Gauge);
    out.sample("rapport_webhook_oldest_pending_age_seconds", {}, age);
  };
}

}  // namespace rapport::host::metrics
