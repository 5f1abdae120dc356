// The JSON shapes of the webhooks module, in one place: the webhook (with the
// secret only where the API returns it), the delivery (list and single read)
// and the event types of GET /webhooks/events.
#pragma once

#include <string>

#include "rapport/db.h"
#include "rapport/events.h"
#include "rapport/json.h"

namespace rapport::webhooks {

// {id, url, events, is_active, disabled_reason, disabled_at, created_at,
// updated_at} from a webhook_store row: what reads, lists and PATCH answer
// (never the secret); disabled_reason and disabled_at are null unless the
// health check disabled it.
Json webhookJson(const Row& row);
// The same with `secret` after `events`: what create answers.
Json webhookJsonWithSecret(const Row& row, const std::string& secret);

// {id, event, status, response_code, attempts, created_at, last_attempt_at}
// from a delivery_store row (response_code and last_attempt_at null when none).
Json deliveryJson(const Row& row);
// The single read: deliveryJson plus payload (the envelope sent, as an
// object) and response_body (string or null).
Json deliveryDetailJson(const Row& row);

// {event, description, module}
Json eventTypeJson(const EventType& type);

// The envelope a receiver gets: {id, event, created_at, actor, data}.
Json envelopeJson(const std::string& envelopeId, const std::string& event, std::int64_t createdAt,
                  const Actor& actor, const Json& data);
// The envelope of an event too large for webhooks.max_payload_bytes:
// {id, event, created_at, actor, data: {id}, data_omitted: true}; data is
// {} when the event's data has no string id.
Json thinEnvelopeJson(const std::string& envelopeId, const std::string& event,
                      std::int64_t createdAt, const Actor& actor, const Json& data);

}  // namespace rapport::webhooks
