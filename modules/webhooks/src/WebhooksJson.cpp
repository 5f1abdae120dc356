#include "WebhooksJson.h"

#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

Json optionalTime(const Row& row, std::string_view column) {
  const auto micros = row.optI64(column);
  return micros ? Json(isoTimestamp(*micros)) : Json();
}

}  // namespace

Json webhookJson(const Row& row) {
  return Json::object({
      {"id", row.str("id")},
      {"url", row.str("url")},
      {"events", Json::parse(row.str("events"))},
      {"is_active", row.flag("is_active")},
      {"disabled_reason", row["disabled_reason"].toJson()},
      {"disabled_at", optionalTime(row, "disabled_at")},
      {"created_at", isoTimestamp(row.i64("created_at"))},
      {"updated_at", isoTimestamp(row.i64("updated_at"))},
  });
}

Json webhookJsonWithSecret(const Row& row, const std::string& secret) {
  return Json::object({
      {"id", row.str("id")},
      {"url", row.str("url")},
      {"events", Json::parse(row.str("events"))},
      {"secret", secret},
      {"is_active", row.flag("is_active")},
      {"disabled_reason", row["disabled_reason"].toJson()},
      {"disabled_at", optionalTime(row, "disabled_at")},
      {"created_at", isoTimestamp(row.i64("created_at"))},
      {"updated_at", isoTimestamp(row.i64("updated_at"))},
  });
}

Json deliveryJson(const Row& row) {
  return Json::object({
      {"id", row.str("id")},
      {"event", row.str("event")},
      {"status", row.str("status")},
      {"response_code", row["response_code"].toJson()},
      {"attempts", row.i64("attempts")},
      {"created_at", isoTimestamp(row.i64("created_at"))},
      {"last_attempt_at", optionalTime(row, "last_attempt_at")},
  });
}

Json deliveryDetailJson(const Row& row) {
  Json delivery = deliveryJson(row);
  delivery.set("payload", Json::parse(row.str("payload")));
  delivery.set("response_body", row["response_body"].toJson());
  return delivery;
}

Json eventTypeJson(const EventType& type) {
  return Json::object(
      {{"event", type.type}, {"description", type.description}, {"module", type.module}});
}

Json envelopeJson(const std::string& envelopeId, const std::string& event, std::int64_t createdAt,
                  const Actor& actor, const Json& data) {
  return Json::object({{"id", envelopeId},
                       {"event", event},
                       {"created_at", isoTimestamp(createdAt)},
                       {"actor", actorJson(actor)},
                       {"data", data}});
}

Json thinEnvelopeJson(const std::string& envelopeId, const std::string& event,
                      std::int64_t createdAt, const Actor& actor, const Json& data) {
  Json thin = Json::object();
  const Json* id = data.isObject() ? data.find("id") : nullptr;
  if (id != nullptr && id->isString()) thin.set("id", *id);
  Json envelope = envelopeJson(envelopeId, event, createdAt, actor, thin);
  envelope.set("data_omitted", true);
  return envelope;
}

}  // namespace rapport::webhooks
