// webhooks: a company's HTTPS endpoints and the signed, retried deliveries of
// its events to them (docs/modules/webhooks.md).
// This file is the module's table of contents: what it is, what it stores,
// what it listens to, the jobs it runs and the routes it serves.
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "DeliveryMetrics.h"
#include "FanOut.h"
#include "WebhookStore.h"
#include "WebhooksApiDoc.h"
#include "WebhooksJson.h"
#include "WebhooksRoutes.h"
#include "delivery/Attempt.h"
#include "delivery/DeliveryWorker.h"
#include "delivery/RetrySchedule.h"
#include "delivery/TargetGuard.h"
#include "health/Disabling.h"
#include "health/EnableRoute.h"
#include "health/HealthCheck.h"
#include "rapport/record_lookup.h"
#include "rapport/sdk.h"
#include "replay/ReplayRoute.h"
#include "webhooks_migrations.gen.h"

namespace rapport::webhooks {
namespace {

constexpr std::int64_t kMaxWorkers = 64;
constexpr std::int64_t kMaxRotationOverlap = 30LL * 86400;
// A thin envelope (data {id}) must fit under the cap; the API's bodies stop
// at 1 MiB, so a record's event is rarely above a few hundred KiB.
constexpr std::int64_t kMinPayloadBytes = 1024;
constexpr std::int64_t kMaxPayloadBytes = 16LL * 1024 * 1024;
// A URL's host is resolved at registration for at most this long (or the
// attempt time-out, when shorter); a name that does not answer in time passes.
constexpr std::chrono::seconds kMaxResolveTime{5};

bool webhookExists(Queryable& db, const std::string& companyId, const std::string& id,
                   RecordLock lock) {
  return webhook_store::find(db, companyId, id, rowLockFor(lock)).has_value();
}

// The webhook as GET /webhooks/{id} shows it (never its secret).
std::optional<Json> fetchWebhook(Queryable& db, const std::string& companyId, const std::string& id,
                                 RecordLock lock) {
  const auto row = webhook_store::find(db, companyId, id, rowLockFor(lock));
  if (!row) return std::nullopt;
  return webhookJson(*row);
}

class WebhooksModule final : public Module {
 public:
  ModuleInfo info() const override {
    return {
        .name = "webhooks",
        .version = "1.0.0",
        .description = "Webhooks: signed, retried HTTPS deliveries of a company's events.",
        .dependencies = {},
        .optional = {},
        // The operator's keys, each default written here only (docs/modules/webhooks.md).
        .configuration = {
            {"webhooks.retry_schedule", "0,60,300,1800,7200,21600", "seconds before each attempt"},
            {"webhooks.timeout", "10", "seconds per delivery attempt"},
            {"webhooks.allow_private_targets", "false", "allow loopback and private receivers"},
            {"webhooks.ca_file", "", "extra trusted CA (PEM) for receivers"},
            {"webhooks.workers", "4", "delivery worker threads per instance"},
            {"webhooks.delivery_retention_days", "30",
             "days finished deliveries stay listed before they are purged"},
            {"webhooks.disable_after_seconds", "432000",
             "seconds of failed deliveries only before a webhook is disabled (0: never)"},
            {"webhooks.health_check_seconds", "300",
             "seconds between the checks for webhooks to disable"},
            {"webhooks.rotation_overlap", "86400",
             "seconds a rotated-away secret still signs beside the new one (0: none)"},
            {"webhooks.max_payload_bytes", "262144",
             "largest delivery body; a larger event is sent with data {id} only"},
            {"webhooks.sync_attempts_per_company", "2",
             "pings and manual retries of one company running at once (429 beyond)"},
            {"webhooks.sync_attempts", "4",
             "pings and manual retries running at once in an instance (429 beyond)"},
            {"webhooks.company_concurrency", "2",
             "delivery batches one company may have in flight at once"},
            {"webhooks.target_concurrency", "2",
             "delivery batches one webhook may have in flight at once"},
            {"webhooks.circuit_timeouts", "3",
             "consecutive timed-out attempts that open a webhook's circuit"},
            {"webhooks.circuit_open_seconds", "60",
             "seconds a webhook's deliveries are deferred once its circuit opened"},
        }};
  }

  void setup(Host& host, Registry& registry) override {
    host_ = &host;
    const Config& config = host.config();
    const auto workers =
        static_cast<unsigned>(config.getIntBetween("webhooks.workers", 1, kMaxWorkers));
    const auto retentionDays =
        static_cast<int>(config.getIntBetween("webhooks.delivery_retention_days", 1, 36500));
    const std::chrono::seconds rotationOverlap(
        config.getIntBetween("webhooks.rotation_overlap", 0, kMaxRotationOverlap));
    const auto maxPayload = static_cast<std::size_t>(
        config.getIntBetween("webhooks.max_payload_bytes", kMinPayloadBytes, kMaxPayloadBytes));

    deliverer_ = std::make_unique<Deliverer>(host);
    // A receiver answering 410 Gone disables its webhook (health/Disabling.h).
    deliverer_->setGoneHandler([&host](const std::string& companyId, const std::string& id) {
      disableGoneWebhook(host, companyId, id);
    });
    routes_ = std::make_unique<WebhooksRoutes>(host, *deliverer_);
    routes_->setRotationOverlap(rotationOverlap);
    // Fairness (docs/modules/webhooks.md): the caps on synchronous attempts
    // and on the batches in flight per company and per webhook.
    routes_->setSyncAttempts(std::make_unique<SyncAttempts>(
        static_cast<int>(config.getIntBetween("webhooks.sync_attempts_per_company", 1, 1000)),
        static_cast<int>(config.getIntBetween("webhooks.sync_attempts", 1, 1000))));
    fanOut_ = std::make_unique<FanOut>(*deliverer_, maxPayload);
    worker_ = std::make_unique<DeliveryWorker>(
        host, *deliverer_,
        ClaimPolicy{.after = {},
                    .perCompany = static_cast<int>(
                        config.getIntBetween("webhooks.company_concurrency", 1, kMaxWorkers)),
                    .perTarget = static_cast<int>(
                        config.getIntBetween("webhooks.target_concurrency", 1, kMaxWorkers))});
    purge_ = std::make_unique<DeliveryPurge>(host, retentionDays);
    enable_ = std::make_unique<EnableRoute>(host);
    replay_ = std::make_unique<ReplayRoute>(host, *deliverer_);
    enable_->setMaxPayloadBytes(maxPayload);
    replay_->setMaxPayloadBytes(maxPayload);

    for (Migration& migration : rapport_generated::webhooks::migrations()) {
      registry.migration(std::move(migration));
    }
    // A webhook is a record with its own route: its GET sends an ETag, and
    // its PATCH, DELETE and actions (rotate-secret, ping, enable, replay)
    // honour If-Match (docs/api-choices.md "Conditional requests").
    registry.recordType(
        "webhook", {.exists = &webhookExists, .fetch = &fetchWebhook, .path = "/webhooks/{id}"});
    registry.eventType("webhook.ping", "A test delivery sent by POST /webhooks/{id}/ping");
    registry.eventType(kWebhookDisabledEvent,
                       "A webhook whose deliveries all failed for too long was disabled");

    // Every recorded event of the company becomes its deliveries, in the
    // emitting transaction (the outbox).
    registry.onEvent([this](Tx& tx, const Event& event) { (*fanOut_)(tx, event); });
    // The workers take due deliveries every second, and at once when a
    // commit wrote some (FanOut wakes them).
    const JobHandle workersHandle =
        registry.job({.name = "deliver",
                      .interval = std::chrono::seconds(1),
                      .run = [this](JobContext& context) { worker_->run(context); },
                      .concurrency = workers});
    fanOut_->setWorkers(workersHandle);
    worker_->setWorkers(workersHandle);
    routes_->setWorkers(workersHandle);
    enable_->setWorkers(workersHandle);
    replay_->setWorkers(workersHandle);
    registry.job({.name = "purge",
                  .interval = std::chrono::hours(1),
                  .run = [this](JobContext& context) { purge_->run(context); },
                  .concurrency = 1});
    // A rotated-away secret whose overlap ended is no longer used to sign
    // (WebhookStore target); this clears it from the row too.
    registry.job({.name = "forget-secrets",
                  .interval = std::chrono::hours(1),
                  .run = [this](JobContext&) { forgetExpiredSecrets(); },
                  .concurrency = 1});
    // Its gauges in GET /metrics (metrics.listen), read at each scrape.
    registerDeliveryMetrics(host, registry);
    // Self-healing (health/): disables webhooks failing for too long.
    const std::chrono::seconds disableAfter(
        config.getIntBetween("webhooks.disable_after_seconds", 0, 3650LL * 86400));
    if (disableAfter.count() > 0) {
      health_ = std::make_unique<HealthCheck>(host, disableAfter);
      registry.job({.name = "health",
                    .interval = std::chrono::seconds(
                        config.getIntBetween("webhooks.health_check_seconds", 1, 86400)),
                    .run = [this](JobContext& context) { health_->run(context); },
                    .concurrency = 1});
    }

    // GET /webhooks/events is open to every member; everything else needs
    // owner or admin (decisions §2): a member gets 403.
    // An API key needs webhooks:manage for every one of them (decisions §15).
    const RouteOptions managers{.access = Access::Authenticated,
                                .roles = {Role::Owner, Role::Admin},
                                .scope = "webhooks:manage"};
    auto route = [&](const char* method, const char* path,
                     Response (WebhooksRoutes::*handler)(const Request&), RouteOptions options) {
      registry.route(
          method, path, [this, handler](const Request& r) { return (routes_.get()->*handler)(r); },
          std::move(options));
    };
    // A literal segment wins over a parameter (host Router): "events" is no webhook id.
    route("GET", "/webhooks/events", &WebhooksRoutes::eventTypes, {.scope = "webhooks:manage"});
    route("GET", "/webhooks", &WebhooksRoutes::list, managers);
    route("POST", "/webhooks", &WebhooksRoutes::create, managers);
    route("GET", "/webhooks/{id}", &WebhooksRoutes::get, managers);
    route("PATCH", "/webhooks/{id}", &WebhooksRoutes::update, managers);
    route("DELETE", "/webhooks/{id}", &WebhooksRoutes::remove, managers);
    route("POST", "/webhooks/{id}/rotate-secret", &WebhooksRoutes::rotateSecret, managers);
    route("POST", "/webhooks/{id}/ping", &WebhooksRoutes::ping, managers);
    route("GET", "/webhooks/{id}/deliveries", &WebhooksRoutes::deliveries, managers);
    route("GET", "/webhooks/{id}/deliveries/{delivery_id}", &WebhooksRoutes::delivery, managers);
    route("POST", "/webhooks/{id}/deliveries/{delivery_id}/retry", &WebhooksRoutes::retry,
          managers);
    registry.route(
        "POST", "/webhooks/{id}/enable", [this](const Request& r) { return (*enable_)(r); },
        managers);
    describeWebhooksRoutes(registry);
    describeEnableRoute(registry);
    registry.route(
        "POST", "/webhooks/{id}/replay", [this](const Request& r) { return (*replay_)(r); },
        managers);
    describeReplayRoute(registry);
  }

  // Reads the delivery settings and builds the sender and the guard; a bad
  // value stops start-up with a message naming the key.
  void start() override {
    const Config& config = host_->config();
    const std::chrono::seconds timeout(config.getIntBetween("webhooks.timeout", 1, 300));
    const bool allowPrivate = config.getBool("webhooks.allow_private_targets");
    DeliverySettings settings{
        .schedule = RetrySchedule::fromList(config.getList("webhooks.retry_schedule")),
        .timeout = timeout,
        .sender = {},
        .circuitTimeouts =
            static_cast<int>(config.getIntBetween("webhooks.circuit_timeouts", 1, 1000)),
        .circuitOpen =
            std::chrono::seconds(config.getIntBetween("webhooks.circuit_open_seconds", 1, 86400))};
    settings.sender.timeout = timeout;
    settings.sender.caFile = config.getString("webhooks.ca_file", "");
    settings.sender.allowPrivateTargets = allowPrivate;
    deliverer_->start(std::move(settings));
    routes_->setGuard(std::make_unique<TargetGuard>(
        allowPrivate, std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::min<std::chrono::seconds>(timeout, kMaxResolveTime))));
    if (allowPrivate) {
      host_->log().warn(
          "webhooks.allow_private_targets is on: webhooks may reach loopback and private "
          "addresses (development and tests only)");
    }
  }

 private:
  void forgetExpiredSecrets() {
    const std::int64_t forgotten = webhook_store::forgetExpiredSecrets(host_->db(), nowMicros());
    if (forgotten > 0) {
      host_->log().info("webhook secrets past their rotation overlap cleared: count=" +
                        std::to_string(forgotten));
    }
  }

  Host* host_ = nullptr;
  // Used by the routes, the listener and the jobs until the module is destroyed.
  std::unique_ptr<Deliverer> deliverer_;
  std::unique_ptr<WebhooksRoutes> routes_;
  std::unique_ptr<FanOut> fanOut_;
  std::unique_ptr<DeliveryWorker> worker_;
  std::unique_ptr<DeliveryPurge> purge_;
  std::unique_ptr<EnableRoute> enable_;
  std::unique_ptr<ReplayRoute> replay_;
  std::unique_ptr<HealthCheck> health_;  // none when webhooks.disable_after_seconds is 0
};

}  // namespace
}  // namespace rapport::webhooks

RAPPORT_MODULE(rapport::webhooks::WebhooksModule, "webhooks", "1.0.0")
