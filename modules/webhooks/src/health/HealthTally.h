// What one batch of attempts says about each webhook's health, written in
// the transaction that records the attempts (Deliverer::deliver).
//
// Outcomes are folded per webhook in attempt order (HealthChange) and
// written in (company, webhook) order: two workers recording batches that
// share webhooks take the webhooks' row locks in the same order, so they
// never deadlock on PostgreSQL.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "delivery/HttpsSender.h"
#include "health/HealthStore.h"
#include "rapport/db.h"

namespace rapport::webhooks {

class HealthTally {
 public:
  // One attempt of a delivery to `webhookId` of `companyId`.
  void add(const std::string& companyId, const std::string& webhookId, const AttemptResult& result,
           std::int64_t attemptedAt);
  // Writes every webhook's change (health_store::apply).
  void apply(Queryable& tx) const;

 private:
  std::map<std::pair<std::string, std::string>, HealthChange> changes_;
};

// A failed attempt in a few words, for the webhook's last_error and the
// owners' notice: "HTTP 500", "timed out", "HTTP 302 (redirects are not
// followed)". Never the receiver's body.
std::string failureSummary(const AttemptResult& result);

}  // namespace rapport::webhooks
