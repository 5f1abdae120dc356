#include "health/HealthTally.h"

namespace rapport::webhooks {

void HealthTally::add(const std::string& companyId, const std::string& webhookId,
                      const AttemptResult& result, std::int64_t attemptedAt) {
  HealthChange& change = changes_[{companyId, webhookId}];
  if (result.success()) {
    change.succeeded = true;
    change.failingSince.reset();
    change.lastError.clear();
    return;
  }
  if (!change.failingSince) change.failingSince = attemptedAt;
  change.lastError = failureSummary(result);
}

void HealthTally::apply(Queryable& tx) const {
  for (const auto& [webhook, change] : changes_) {
    health_store::apply(tx, webhook.first, webhook.second, change);
  }
}

std::string failureSummary(const AttemptResult& result) {
  std::string summary = result.status > 0 ? "HTTP " + std::to_string(result.status) : "";
  if (!result.error.empty()) {
    summary += summary.empty() ? result.error : " (" + result.error + ")";
  }
  return summary.empty() ? "no answer" : summary;
}

}  // namespace rapport::webhooks
