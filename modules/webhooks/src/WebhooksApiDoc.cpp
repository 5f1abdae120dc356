// The webhooks routes for the API document; the fields and rules are those
// of WebhooksJson, WebhooksValidation and docs/modules/webhooks.md.
#include "WebhooksApiDoc.h"

#include "rapport/api_doc.h"

namespace rapport::webhooks {
namespace {

const char* const kManagers = "Needs the owner or admin role.";

Json deliveryStatus() {
  return schema::enumOf({"pending", "success", "failed"});
}

// The webhook as every answer but the create shows it: without its secret.
Json webhookSchema(bool withSecret) {
  schema::Properties properties = {
      {"id", schema::id("whk_")},
      {"url", schema::url("The https (or http) address deliveries are posted to.")},
      {"events", schema::arrayOf(schema::string(), "The event types it receives.")}};
  std::vector<std::string> required = {"id", "url", "events"};
  if (withSecret) {
    properties.emplace_back("secret", schema::string("Signs the deliveries; shown only here."));
    required.emplace_back("secret");
  }
  properties.insert(
      properties.end(),
      {{"is_active", schema::boolean()},
       {"disabled_reason",
        schema::nullable(schema::enumOf({"failing", "gone"},
                                        "Why the server disabled it: \"failing\" when every "
                                        "delivery failed for webhooks.disable_after_seconds; "
                                        "\"gone\" when the receiver answered 410 Gone; "
                                        "null otherwise (POST /webhooks/{id}/enable)."))},
       {"disabled_at", schema::nullable(schema::timestamp("When the server disabled it."))},
       {"created_at", schema::timestamp()},
       {"updated_at", schema::timestamp()}});
  required.insert(required.end(),
                  {"is_active", "disabled_reason", "disabled_at", "created_at", "updated_at"});
  return schema::object(std::move(properties), std::move(required));
}

Json deliveryProperties(bool detail) {
  schema::Properties properties = {
      {"id", schema::id("whd_")},
      {"event", schema::string("The event type.")},
      {"status", deliveryStatus()},
      {"response_code", schema::nullable(schema::integer("The receiver's last HTTP status."))},
      {"attempts", schema::integer()},
      {"created_at", schema::timestamp()},
      {"last_attempt_at", schema::nullable(schema::timestamp())}};
  std::vector<std::string> required = {"id",       "event",      "status",         "response_code",
                                       "attempts", "created_at", "last_attempt_at"};
  if (detail) {
    properties.emplace_back("payload", schema::ref("WebhookEnvelope"));
    properties.emplace_back(
        "response_body", schema::nullable(schema::string("The start of the receiver's answer.")));
    required.insert(required.end(), {"payload", "response_body"});
  }
  return schema::object(std::move(properties), std::move(required));
}

// What a delivery posts (WebhooksJson envelopeJson), as the receiver got it.
Json envelopeSchema() {
  return schema::object(
      {{"id", schema::id("evt_", "The envelope's id: unique per delivery.")},
       {"event", schema::string("The event type (webhook.ping for a ping).")},
       {"created_at", schema::timestamp("When the event happened.")},
       {"actor", schema::ref("Actor")},
       {"data", schema::object({}, {},
                               "The event's data, as `data` in GET /v1/events (the record, or "
                               "{\"id\"} for a deletion); {\"webhook_id\"} for a ping.")
                    .set("additionalProperties", true)}},
      {"id", "event", "created_at", "actor", "data"}, "The envelope as posted.");
}

// A create or a PATCH; a PATCH with a secret replaces it.
Json webhookBody(bool creating) {
  return schema::object(
      {{"url", schema::url("http or https, at most 2048 characters; a public address.")},
       {"events",
        schema::arrayOf(schema::string(), "1 to 100 event types (GET /webhooks/events).")},
       {"secret", schema::string("16 to 256 characters; generated when absent on create.")},
       {"is_active", schema::boolean("Default true.")}},
      creating ? std::vector<std::string>{"url", "events"} : std::vector<std::string>{});
}

Json pageQuery(schema::Properties filters = {}) {
  return schema::pageQuery({"created_at"}, "-created_at", std::move(filters));
}

void describeWebhooks(Registry& registry) {
  const Json webhook = schema::ref("Webhook");
  registry.describe("GET", "/webhooks/events",
                    {.summary = "List the event types a webhook can receive",
                     .data = schema::arrayOf(schema::object({{"event", schema::string()},
                                                             {"description", schema::string()},
                                                             {"module", schema::string()}},
                                                            {"event", "description", "module"}))});
  registry.describe("GET", "/webhooks",
                    {.summary = "List webhooks",
                     .description = kManagers,
                     .query = pageQuery(),
                     .data = schema::arrayOf(webhook),
                     .paged = true});
  registry.describe(
      "POST", "/webhooks",
      {.summary = "Create a webhook",
       .description = std::string(kManagers) + " The answer is the only one that shows the secret.",
       .body = webhookBody(true),
       .status = 201,
       .data = schema::ref("WebhookWithSecret")});
  registry.describe("GET", "/webhooks/{id}",
                    {.summary = "Get a webhook", .description = kManagers, .data = webhook});
  registry.describe(
      "PATCH", "/webhooks/{id}",
      {.summary = "Update a webhook",
       .description = std::string(kManagers) + " Deactivating it pauses its pending deliveries; "
                                               "activating it resumes them.",
       .body = webhookBody(false),
       .data = webhook});
  registry.describe("DELETE", "/webhooks/{id}",
                    {.summary = "Delete a webhook and its deliveries",
                     .description = std::string(kManagers) + " The answer carries no data."});
  registry.describe(
      "POST", "/webhooks/{id}/rotate-secret",
      {.summary = "Replace a webhook's secret with a generated one",
       .description = std::string(kManagers) +
                      " The replaced secret keeps signing beside the new one (a second v1 in "
                      "X-Service-Signature) for webhooks.rotation_overlap, 24 hours by default.",
       .data = schema::object({{"id", schema::id("whk_")}, {"secret", schema::string()}},
                              {"id", "secret"})});
}

void describeDeliveries(Registry& registry) {
  const std::string one = "/webhooks/{id}/deliveries/{delivery_id}";
  registry.describe(
      "POST", "/webhooks/{id}/ping",
      {.summary = "Send a webhook.ping delivery now",
       .description = std::string(kManagers) +
                      " Answers after the one attempt (at most webhooks.timeout). 429 with "
                      "Retry-After when the company already has "
                      "webhooks.sync_attempts_per_company pings and retries running, or the "
                      "server webhooks.sync_attempts; nothing is written then.",
       .data = schema::object({{"delivery_id", schema::id("whd_")},
                               {"event", schema::string()},
                               {"status", deliveryStatus()},
                               {"response_code", schema::nullable(schema::integer())}},
                              {"delivery_id", "event", "status", "response_code"})});
  registry.describe(
      "GET", "/webhooks/{id}/deliveries",
      {.summary = "List a webhook's deliveries",
       .description = kManagers,
       .query = pageQuery({{"status", deliveryStatus()},
                           {"event", schema::string("Keeps deliveries of this event type.")}}),
       .data = schema::arrayOf(schema::ref("WebhookDelivery")),
       .paged = true});
  registry.describe("GET", one,
                    {.summary = "Get a delivery with its payload and answer",
                     .description = kManagers,
                     .data = schema::ref("WebhookDeliveryDetail")});
  registry.describe("POST", one + "/retry",
                    {.summary = "Send a failed delivery again now",
                     .description = std::string(kManagers) +
                                    " 409 unless it failed (and no other attempt holds it). "
                                    "429 with Retry-After beyond the caps on pings and retries "
                                    "running at once (as ping).",
                     .data = schema::object(
                         {{"id", schema::id("whd_")},
                          {"event", schema::string()},
                          {"status", deliveryStatus()},
                          {"response_code", schema::nullable(schema::integer())},
                          {"attempts", schema::integer()},
                          {"last_attempt_at", schema::nullable(schema::timestamp())}},
                         {"id", "event", "status", "response_code", "attempts", "last_attempt_at"}),
                     .errors = {409}});
}

}  // namespace

void describeWebhooksRoutes(Registry& registry) {
  registry.schema("Webhook", webhookSchema(false));
  registry.schema("WebhookWithSecret", webhookSchema(true));
  registry.schema("WebhookDelivery", deliveryProperties(false));
  registry.schema("WebhookEnvelope", envelopeSchema());
  registry.schema("WebhookDeliveryDetail", deliveryProperties(true));
  describeWebhooks(registry);
  describeDeliveries(registry);
}

}  // namespace rapport::webhooks
