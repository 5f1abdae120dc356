// The handlers of the webhooks module (docs/modules/webhooks.md, "Routes").
// Each reads the request, validates it (the URL's forgery check included,
// before any transaction), does its writes in one transaction and answers.
// Ping and manual retry then make one synchronous attempt, outside the
// transaction, through the Deliverer, within the caps of SyncAttempts (429
// with Retry-After beyond them).
#pragma once

#include <chrono>
#include <memory>

#include "delivery/Attempt.h"
#include "delivery/SyncAttempts.h"
#include "delivery/TargetGuard.h"
#include "rapport/http.h"
#include "rapport/module.h"

namespace rapport::webhooks {

class WebhooksRoutes {
 public:
  // `host` and `deliverer` outlive this object.
  WebhooksRoutes(Host& host, Deliverer& deliverer);

  // Built by WebhooksModule::start() from the configuration.
  void setGuard(std::unique_ptr<TargetGuard> guard) { guard_ = std::move(guard); }
  // The caps on pings and manual retries, built in setup().
  void setSyncAttempts(std::unique_ptr<SyncAttempts> caps) { syncAttempts_ = std::move(caps); }
  // The delivery job's handle: a resumed webhook wakes the workers.
  void setWorkers(JobHandle workers) { workers_ = std::move(workers); }
  // webhooks.rotation_overlap: how long a rotated-away secret still signs.
  void setRotationOverlap(std::chrono::seconds overlap) { rotationOverlap_ = overlap; }

  // GET /webhooks/events (any member)
  Response eventTypes(const Request& request);
  // GET /webhooks
  Response list(const Request& request);
  // POST /webhooks: 201 with the secret
  Response create(const Request& request);
  // GET /webhooks/{id}
  Response get(const Request& request);
  // PATCH /webhooks/{id}
  Response update(const Request& request);
  // DELETE /webhooks/{id}
  Response remove(const Request& request);
  // POST /webhooks/{id}/rotate-secret
  Response rotateSecret(const Request& request);
  // POST /webhooks/{id}/ping
  Response ping(const Request& request);
  // GET /webhooks/{id}/deliveries
  Response deliveries(const Request& request);
  // GET /webhooks/{id}/deliveries/{delivery_id}
  Response delivery(const Request& request);
  // POST /webhooks/{id}/deliveries/{delivery_id}/retry
  Response retry(const Request& request);

 private:
  std::string seal(const std::string& webhookId, const std::string& secret) const;
  const TargetGuard& guard() const;
  // A place for one synchronous attempt of the caller's company, or 429.
  SyncAttempts::Slot syncSlot(const Request& request);
  // 404 unless `id` is a webhook of the caller's company.
  void requireWebhook(const Request& request, const std::string& id) const;

  Host& host_;
  Deliverer& deliverer_;
  std::unique_ptr<TargetGuard> guard_;
  std::unique_ptr<SyncAttempts> syncAttempts_;
  JobHandle workers_;
  std::chrono::seconds rotationOverlap_{0};
};

}  // namespace rapport::webhooks
