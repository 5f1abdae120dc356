#include "WebhooksRoutes.h"

#include "DeliveryStore.h"
#include "WebhookStore.h"
#include "WebhooksJson.h"
#include "WebhooksValidation.h"
#include "health/HealthStore.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/pagination.h"
#include "rapport/query.h"
#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

const char* const kWebhookNotFound = "Webhook not found.";
const char* const kDeliveryNotFound = "Delivery not found.";
const char* const kNotResendable = "The delivery is not in a resendable state.";
const char* const kPingEvent = "webhook.ping";
const char* const kTooManyAttempts =
    "Too many test deliveries at once (pings and manual retries); try again shortly.";

// Applies the fields a PATCH sent; false when it sent none. Validation
// refuses null for each of them, so a sent field carries a value.
bool merge(const WebhookInput& in, Webhook& webhook) {
  bool applied = false;
  applied |= in.url.applyTo(webhook.url);
  applied |= in.events.applyTo(webhook.events);
  applied |= in.isActive.applyTo(webhook.active, webhook.active);
  return applied;
}

}  // namespace

WebhooksRoutes::WebhooksRoutes(Host& host, Deliverer& deliverer)
    : host_(host), deliverer_(deliverer) {}

std::string WebhooksRoutes::seal(const std::string& webhookId, const std::string& secret) const {
  return host_.secrets().seal(secret, "webhook:" + webhookId);
}

SyncAttempts::Slot WebhooksRoutes::syncSlot(const Request& request) {
  if (!syncAttempts_) throw std::logic_error("webhooks: the caps are built in setup()");
  auto slot = syncAttempts_->tryTake(request.identity.companyId);
  // A slot is held at most one attempt's time-out.
  if (!slot) throw Error::tooManyRequests(deliverer_.timeout().count(), kTooManyAttempts);
  return std::move(*slot);
}

const TargetGuard& WebhooksRoutes::guard() const {
  if (!guard_) throw std::logic_error("webhooks: the target guard is built in start()");
  return *guard_;
}

void WebhooksRoutes::requireWebhook(const Request& request, const std::string& id) const {
  if (!webhook_store::find(host_.db(), request.identity.companyId, id)) {
    throw Error::notFound(kWebhookNotFound);
  }
}

Response WebhooksRoutes::eventTypes(const Request&) {
  Json types = Json::array();
  for (const EventType& type : host_.events().types()) types.push(eventTypeJson(type));
  return Response::ok(std::move(types));
}

Response WebhooksRoutes::list(const Request& request) {
  const PageRequest page = parsePage(request);
  const Sort sort = parseSort(request, webhook_store::sortColumns(), webhook_store::defaultSort());
  const ListPage found = webhook_store::list(host_.db(), request.identity.companyId, sort, page);
  return listResponse(found, page, webhookJson);
}

Response WebhooksRoutes::create(const Request& request) {
  const WebhookInput in = validateWebhook(request.bodyObject(), Mode::Create, guard(),
                                          host_.events(), request.identity.companyId);
  const Webhook webhook{
      .url = *in.url.value, .events = *in.events.value, .active = in.isActive.valueOr(true)};
  const std::string id = newId("whk_");
  const std::string secret = in.secret.value ? *in.secret.value : generateSecret();
  const std::string sealed = seal(id, secret);
  Json created;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    webhook_store::insert(tx, id, webhook, sealed, nowMicros());
    created = webhookJsonWithSecret(*webhook_store::find(tx, tx.companyId(), id), secret);
  });
  return Response::created(std::move(created), "Webhook created.");
}

Response WebhooksRoutes::get(const Request& request) {
  const auto row = webhook_store::find(host_.db(), request.identity.companyId, request.param("id"));
  if (!row) throw Error::notFound(kWebhookNotFound);
  return Response::ok(webhookJson(*row));
}

Response WebhooksRoutes::update(const Request& request) {
  const WebhookInput in = validateWebhook(request.bodyObject(), Mode::Update, guard(),
                                          host_.events(), request.identity.companyId);
  const std::string& id = request.param("id");
  const std::optional<std::string> sealed =
      in.secret.value ? std::optional<std::string>(seal(id, *in.secret.value)) : std::nullopt;
  Json updated;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = webhook_store::find(tx, tx.companyId(), id, RowLock::NoKeyUpdate);
    if (!row) throw Error::notFound(kWebhookNotFound);
    Webhook webhook = webhook_store::fromRow(*row);
    const std::vector<std::string> eventsBefore = webhook.events;
    const bool wasActive = webhook.active;
    if (!merge(in, webhook) && !sealed) {  // nothing to change: no write
      updated = webhookJson(*row);
      return;
    }
    const std::int64_t now = nowMicros();
    webhook_store::update(tx, id, webhook, eventsBefore, sealed, now);
    if (wasActive && !webhook.active) {
      delivery_store::pause(tx, id);
    } else if (!wasActive && webhook.active) {
      health_store::markHealthy(tx, id);  // a fresh start: no streak, no disable marks
      delivery_store::resume(tx, id, now);
      tx.afterCommit([workers = workers_] {
        if (workers) workers->wake();
      });
    }
    updated = webhookJson(*webhook_store::find(tx, tx.companyId(), id));
  });
  return Response::ok(std::move(updated), "Webhook updated.");
}

Response WebhooksRoutes::remove(const Request& request) {
  const std::string& id = request.param("id");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (!webhook_store::remove(tx, id)) throw Error::notFound(kWebhookNotFound);
    // Pending deliveries go with it; an attempt in flight then records nothing.
    delivery_store::removeOfWebhook(tx, id);
  });
  return Response::messageOnly("Webhook deleted.");
}

Response WebhooksRoutes::rotateSecret(const Request& request) {
  const std::string& id = request.param("id");
  const std::string secret = generateSecret();
  const std::string sealed = seal(id, secret);
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (!webhook_store::find(tx, tx.companyId(), id, RowLock::NoKeyUpdate)) {
      throw Error::notFound(kWebhookNotFound);
    }
    // The replaced secret keeps signing beside the new one for the overlap
    // (dual signatures), so receivers can switch without losing deliveries.
    const std::int64_t now = nowMicros();
    const auto previousUntil =
        rotationOverlap_.count() > 0
            ? std::optional<std::int64_t>(now + rotationOverlap_.count() * 1'000'000)
            : std::nullopt;
    webhook_store::rotateSecret(tx, id, sealed, previousUntil, now);
  });
  return Response::ok(Json::object({{"id", id}, {"secret", secret}}), "Secret rotated.");
}

Response WebhooksRoutes::ping(const Request& request) {
  const std::string& id = request.param("id");
  // Before anything is written: a 429 leaves no delivery behind.
  const SyncAttempts::Slot slot = syncSlot(request);
  const std::int64_t now = nowMicros();
  const Lease lease = deliverer_.newLease(now);
  ClaimedDelivery claimed;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    // Key-share: a concurrent DELETE of the webhook waits for this commit,
    // then deletes this delivery with the others.
    if (!webhook_store::find(tx, tx.companyId(), id, RowLock::KeyShare)) {
      throw Error::notFound(kWebhookNotFound);
    }
    NewDelivery delivery{.id = newId("whd_"),
                         .webhookId = id,
                         .envelopeId = newId("evt_"),
                         .event = kPingEvent,
                         .eventId = std::nullopt,
                         .payload = {},
                         .createdAt = now,
                         .nextAttemptAt = std::nullopt,
                         .lease = lease.token,
                         .leaseUntil = lease.until};
    delivery.payload = envelopeJson(delivery.envelopeId, kPingEvent, now, actorOf(request.identity),
                                    Json::object({{"webhook_id", id}}))
                           .dump();
    delivery_store::insert(tx, delivery);
    claimed = {.id = delivery.id,
               .companyId = tx.companyId(),
               .webhookId = id,
               .event = kPingEvent,
               .payload = delivery.payload,
               .attempts = 0,
               .lease = lease.token,
               .leaseUntil = lease.until};
  });
  const auto recorded = deliverer_.deliver({claimed}, Deliverer::Mode::Final).front();
  if (!recorded) throw Error::notFound(kWebhookNotFound);  // deleted during the attempt
  return Response::ok(Json::object({{"delivery_id", recorded->str("id")},
                                    {"event", recorded->str("event")},
                                    {"status", recorded->str("status")},
                                    {"response_code", (*recorded)["response_code"].toJson()}}),
                      "Ping sent.");
}

Response WebhooksRoutes::deliveries(const Request& request) {
  const std::string& id = request.param("id");
  requireWebhook(request, id);
  const DeliveryFilter filter = validateDeliveryFilter(request);
  const PageRequest page = parsePage(request);
  const Sort sort =
      parseSort(request, delivery_store::sortColumns(), delivery_store::defaultSort());
  const ListPage found =
      delivery_store::list(host_.db(), request.identity.companyId, id, filter, sort, page);
  return listResponse(found, page, deliveryJson);
}

Response WebhooksRoutes::delivery(const Request& request) {
  const std::string& id = request.param("id");
  requireWebhook(request, id);
  const auto row = delivery_store::find(host_.db(), request.identity.companyId, id,
                                        request.param("delivery_id"));
  if (!row) throw Error::notFound(kDeliveryNotFound);
  return Response::ok(deliveryDetailJson(*row));
}

Response WebhooksRoutes::retry(const Request& request) {
  const std::string& id = request.param("id");
  const std::string& deliveryId = request.param("delivery_id");
  requireWebhook(request, id);
  const SyncAttempts::Slot slot = syncSlot(request);
  const std::int64_t now = nowMicros();
  const Lease lease = deliverer_.newLease(now);
  const auto claimed = delivery_store::claimFailed(host_.db(), request.identity.companyId, id,
                                                   deliveryId, now, lease.token, lease.until);
  if (!claimed) {
    if (!delivery_store::find(host_.db(), request.identity.companyId, id, deliveryId)) {
      throw Error::notFound(kDeliveryNotFound);
    }
    // pending, success, or failed but held by another attempt right now.
    throw Error::conflict(kNotResendable);
  }
  const auto recorded = deliverer_.deliver({*claimed}, Deliverer::Mode::Final).front();
  if (!recorded) throw Error::notFound(kDeliveryNotFound);  // deleted during the attempt
  return Response::ok(
      Json::object({{"id", recorded->str("id")},
                    {"event", recorded->str("event")},
                    {"status", recorded->str("status")},
                    {"response_code", (*recorded)["response_code"].toJson()},
                    {"attempts", recorded->i64("attempts")},
                    {"last_attempt_at", deliveryJson(*recorded)["last_attempt_at"]}}),
      "Delivery retried.");
}

}  // namespace rapport::webhooks
