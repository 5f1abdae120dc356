#include "events/EventRetention.h"

#include <stdexcept>
#include <string>

#include "events/EventBus.h"
#include "log/Log.h"
#include "rapport/time.h"

namespace rapport::host {
namespace {

constexpr int kBatch = 1000;
constexpr std::int64_t kMicrosPerDay = 86'400'000'000;

}  // namespace

rapport::Job eventRetentionJob(rapport::Database& db, int retentionDays) {
  if (retentionDays < 1) throw std::invalid_argument("events.retention_days must be at least 1");
  return {.name = "events.retention",
          .interval = std::chrono::hours(1),
          .run =
              [&db, retentionDays](rapport::JobContext& context) {
                const std::int64_t cutoff = nowMicros() - retentionDays * kMicrosPerDay;
                std::int64_t removed = 0;
                for (std::int64_t n = kBatch; n == kBatch && !context.stopping();) {
                  n = EventBus::purgeOlderThan(db, cutoff, kBatch);
                  removed += n;
                }
                if (removed > 0) {
                  log::info("old events removed", {{"count", std::to_string(removed)}});
                }
              },
          .concurrency = 1};
}

}  // namespace rapport::host
