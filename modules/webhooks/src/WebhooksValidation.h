// What a webhooks request may carry: the bodies of POST and PATCH
// /webhooks, and the deliveries list's filters. Every rule that needs no
// database lives here, the request-forgery guard's registration check
// (which resolves the URL's host) included.
#pragma once

#include <string>
#include <vector>

#include "DeliveryStore.h"
#include "delivery/TargetGuard.h"
#include "rapport/events.h"
#include "rapport/http.h"
#include "rapport/validation.h"

namespace rapport::webhooks {

// A validated body. Each Field tells apart absent (PATCH leaves it alone)
// and a value; none of these fields can be cleared (null answers 422, except
// a null secret on create, which reads as absent: one is generated).
struct WebhookInput {
  Field<std::string> url;
  Field<std::vector<std::string>> events;  // the client's order, duplicates removed
  Field<std::string> secret;
  Field<bool> isActive;
};

enum class Mode { Create, Update };

// Reads a POST (Create: url and events required) or PATCH (Update) body.
// Throws one 422 naming every field at fault. `guard` checks the URL
// (syntax, then the addresses its host resolves to, a lookup counted
// against `companyId`'s share, TargetResolver.h); `catalogue` knows the
// event types of the enabled modules.
WebhookInput validateWebhook(const Json& body, Mode mode, const TargetGuard& guard,
                             const EventCatalogue& catalogue, const std::string& companyId);

// Reads the filters of GET /webhooks/{id}/deliveries: status (one of
// pending, success, failed, else 422) and event (exact); blank ones are ignored.
DeliveryFilter validateDeliveryFilter(const Request& request);

// A new secret: "whsec_" and 32 random bytes, base64url.
std::string generateSecret();

}  // namespace rapport::webhooks
