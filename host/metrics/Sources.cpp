#include "metrics/Sources.h"

#include <cstdint>

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

}  // namespace rapport::host::metrics
