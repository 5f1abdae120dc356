// Field rules of a webhook (docs/modules/webhooks.md lists them).
#include "WebhooksValidation.h"

#include <algorithm>

#include "rapport/ids.h"
#include "rapport/query.h"

namespace rapport::webhooks {
namespace {

constexpr std::size_t kMaxUrlLength = 2048;
constexpr std::size_t kMinSecret = 16;
constexpr std::size_t kMaxSecret = 256;
// More entries than any installation declares event types; bounds the work
// (and the message) a body can cause.
constexpr std::size_t kMaxEvents = 100;
// The longest event type name read; longer ones are unknown in any case.
constexpr std::size_t kMaxEventLength = 255;
// Unknown types named in the message at most.
constexpr std::size_t kMaxNamedUnknown = 10;

// C0 controls and DEL, and the C1 controls (U+0080..U+009F, encoded C2 80..C2 9F).
bool hasControlCharacter(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9f) return true;
    }
  }
  return false;
}

Field<std::string> validateUrl(Validator& v, Mode mode, const TargetGuard& guard,
                               const std::string& companyId) {
  // PATCH may leave the url out, but never clear it.
  const bool required = mode == Mode::Create || v.present("url");
  Field<std::string> url =
      v.string("url", {.required = required, .min = 0, .max = kMaxUrlLength, .trim = true});
  if (url.value) {
    if (const auto problem = guard.checkForRegistration(*url.value, companyId)) {
      v.fail("url", *problem);
      url.value.reset();
    }
  }
  return url;
}

Field<std::vector<std::string>> validateEvents(Validator& v, const Json& body, Mode mode,
                                               const EventCatalogue& catalogue) {
  Field<std::vector<std::string>> out;
  const Json* value = body.find("events");
  out.present = value != nullptr;
  if (value == nullptr || value->isNull()) {
    if (mode == Mode::Create || value != nullptr) v.fail("events", "The events field is required.");
    return out;
  }
  if (!value->isArray()) {
    v.fail("events", "The events must be an array.");
    return out;
  }
  const Json::Array& items = value->asArray();
  if (items.empty()) {
    v.fail("events", "The events must contain at least one event type.");
    return out;
  }
  if (items.size() > kMaxEvents) {
    v.fail("events", "The events may not have more than " + std::to_string(kMaxEvents) + " items.");
    return out;
  }
  std::vector<std::string> events;
  std::vector<std::string> unknown;
  bool wellFormed = true;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string key = "events." + std::to_string(i);
    if (!items[i].isString()) {
      v.fail(key, "The " + key + " must be a string.");
      wellFormed = false;
      continue;
    }
    const std::string& type = items[i].asString();
    if (std::find(events.begin(), events.end(), type) != events.end()) continue;
    if (type.size() > kMaxEventLength || !catalogue.find(type)) {
      if (std::find(unknown.begin(), unknown.end(), type) == unknown.end()) {
        unknown.push_back(type);
      }
      continue;
    }
    events.push_back(type);
  }
  if (!unknown.empty()) {
    std::string names;
    for (std::size_t i = 0; i < unknown.size() && i < kMaxNamedUnknown; ++i) {
      if (i > 0) names += ", ";
      const std::string& name = unknown[i];
      names += name.size() > 64 ? name.substr(0, 64) + "..." : name;
    }
    if (unknown.size() > kMaxNamedUnknown) {
      names += " and " + std::to_string(unknown.size() - kMaxNamedUnknown) + " more";
    }
    v.fail("events", (unknown.size() == 1 ? "Unknown event type: " : "Unknown event types: ") +
                         names + ". GET /v1/webhooks/events lists the known ones.");
    return out;
  }
  if (wellFormed) out.value = std::move(events);
  return out;
}

Field<std::string> validateSecret(Validator& v, Mode mode) {
  // A null secret on create reads as absent (one is generated); on PATCH it
  // would clear the secret, which cannot be.
  const bool required = mode == Mode::Update && v.present("secret");
  Field<std::string> secret = v.string(
      "secret", {.required = required, .min = kMinSecret, .max = kMaxSecret, .trim = false});
  if (secret.value && hasControlCharacter(*secret.value)) {
    v.fail("secret", "The secret must not contain control characters.");
    secret.value.reset();
  }
  return secret;
}

}  // namespace

WebhookInput validateWebhook(const Json& body, Mode mode, const TargetGuard& guard,
                             const EventCatalogue& catalogue, const std::string& companyId) {
  Validator v(body);
  WebhookInput in;
  in.events = validateEvents(v, body, mode, catalogue);
  in.secret = validateSecret(v, mode);
  in.isActive = v.boolean("is_active", v.present("is_active"));
  // Every field at fault is named at once, so the url's check (which
  // resolves its host, bounded by the guard's time-out) runs whatever the
  // other fields gave.
  in.url = validateUrl(v, mode, guard, companyId);
  v.check();
  return in;
}

DeliveryFilter validateDeliveryFilter(const Request& request) {
  DeliveryFilter filter{.status = filterParam(request, "status"),
                        .event = filterParam(request, "event")};
  if (filter.status && *filter.status != kPending && *filter.status != kSuccess &&
      *filter.status != kFailed) {
    throw Error::validation({{"status", {"The selected status is invalid."}}});
  }
  return filter;
}

std::string generateSecret() {
  return "whsec_" + randomToken(32);
}

}  // namespace rapport::webhooks
