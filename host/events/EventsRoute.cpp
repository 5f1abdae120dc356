#include "events/EventsRoute.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::host {
namespace {

constexpr std::int64_t kDefaultLimit = 50;
constexpr std::int64_t kMaxLimit = 100;
constexpr char kTruncated[] =
    "The cursor is older than the event log keeps (events.retention_days).";

// Digits only (no sign, no spaces); nullopt when malformed or out of range.
std::optional<std::int64_t> boundedInteger(const std::string& text, std::int64_t min,
                                           std::int64_t max) {
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < min || value > max) return std::nullopt;
  return value;
}

// `type=a,b`: exact names, each one a declared type (else a 422 naming it).
std::vector<std::string> requestedTypes(const Request& request,
                                        const rapport::EventCatalogue& catalogue,
                                        FieldErrors& errors) {
  std::vector<std::string> types;
  const std::optional<std::string> text = request.queryParam("type");
  if (!text) return types;
  std::size_t start = 0;
  while (start <= text->size()) {
    const std::size_t comma = std::min(text->find(',', start), text->size());
    const std::string type = rapport::trim(text->substr(start, comma - start));
    start = comma + 1;
    if (type.empty()) continue;
    if (!catalogue.find(type)) {
      errors["type"].push_back("The type '" + type + "' is not a known event type.");
    } else if (std::find(types.begin(), types.end(), type) == types.end()) {
      types.push_back(type);
    }
  }
  if (types.empty() && errors.count("type") == 0) {
    errors["type"].push_back("The type must name at least one event type.");
  }
  return types;
}

Json eventJson(const LoggedEvent& logged) {
  const Event& event = logged.event;
  return Json::object(
      {{"id", event.id},
       {"sequence", Json(static_cast<long long>(logged.sequence))},
       {"type", event.type},
       {"module", event.module},
       {"request_id", event.requestId.empty() ? Json(nullptr) : Json(event.requestId)},
       {"created_at", isoTimestamp(event.createdAt)},
       {"actor", actorJson(event.actor)},
       {"data", event.data}});
}

Response listEvents(const Request& request, Database& db, const EventCatalogue& catalogue,
                    const EventLog& log) {
  FieldErrors errors;
  const std::optional<std::string> afterText = request.queryParam("after");
  std::int64_t after = 0;
  if (afterText) {
    const auto value = boundedInteger(*afterText, 0, std::numeric_limits<std::int64_t>::max());
    if (value)
      after = *value;
    else
      errors["after"].push_back("The after must be an integer of at least 0.");
  }
  std::int64_t limit = kDefaultLimit;
  if (const auto text = request.queryParam("limit")) {
    const auto value = boundedInteger(*text, 1, kMaxLimit);
    if (value)
      limit = *value;
    else
      errors["limit"].push_back("The limit must be an integer between 1 and 100.");
  }
  std::vector<std::string> types = requestedTypes(request, catalogue, errors);
  if (!errors.empty()) throw Error::validation(std::move(errors));

  // One more than asked: whether another page follows, without a count.
  EventPage page = log.read(db, request.identity.companyId,
                            {.afterSequence = after,
                             .since = 0,
                             .types = std::move(types),
                             .limit = static_cast<std::size_t>(limit) + 1});
  // Without a cursor the reader starts at the oldest event kept; a cursor
  // the retention already passed would skip events silently: 410.
  if (afterText && page.truncated) throw Error::gone(kTruncated);
  const bool hasMore = page.events.size() > static_cast<std::size_t>(limit);
  if (hasMore) page.events.resize(static_cast<std::size_t>(limit));

  Json::Array data;
  for (const LoggedEvent& logged : page.events) data.push_back(eventJson(logged));
  const std::int64_t next = page.events.empty() ? after : page.events.back().sequence;
  return Response::list(
      Json(std::move(data)),
      Json::object({{"next_cursor", Json(static_cast<long long>(next))}, {"has_more", hasMore}}));
}

// What an event carries: the record as its GET answers it, {"id"} for a
// deletion, and whatever a module's own event types declare (any object).
Json eventData() {
  return schema::object({{"id", schema::string("The record's id.")}}, {},
                        "The record as GET returns it; {\"id\"} for a deletion. Its fields "
                        "depend on the event type.")
      .set("additionalProperties", true);
}

// meta of GET /v1/events: the cursor to read on from.
Json cursorMeta() {
  return schema::object(
      {{"next_cursor", schema::integerBetween(0, std::numeric_limits<std::int64_t>::max(),
                                              "The last sequence returned, or `after` when "
                                              "none: pass it as `after` to read on.")},
       {"has_more", schema::boolean("True when more events follow now.")}},
      {"next_cursor", "has_more"});
}

void describeEventsRoute(Registry& registry) {
  using namespace rapport::schema;
  // Also in webhook envelopes (decisions §15, §16).
  registry.schema("Actor",
                  object({{"type", enumOf({"user", "api_key", "system"}, "who caused the event")},
                          {"id", string("user_... or key_...; absent for the system")}},
                         {"type"}));
  registry.schema(
      "Event",
      object({{"id", id("evt_", "the occurrence")},
              {"sequence", integer("its place in the company's log: the cursor")},
              {"type", string("the event type, as in GET /v1/webhooks/events")},
              {"module", string("the module that declared the type")},
              {"request_id", nullable(string("X-Request-Id of the request that caused it"))},
              {"created_at", timestamp()},
              {"actor", ref("Actor")},
              {"data", eventData()}},
             {"id", "sequence", "type", "module", "request_id", "created_at", "actor", "data"}));
  registry.describe(
      "GET", "/events",
      {.summary = "Read the event log",
       .description = "The company's events in log order (`sequence`), after the cursor `after`. "
                      "`meta` is `{\"next_cursor\": <the last sequence returned, or `after`>, "
                      "\"has_more\": <bool>}`: pass `next_cursor` as `after` to read on. Without "
                      "`after`, the log is read from its oldest kept event. A cursor older than "
                      "what the log keeps (`events.retention_days`) is answered 410.",
       .query =
           object({{"after", integerBetween(0, std::numeric_limits<std::int64_t>::max(),
                                            "events with a greater sequence (default: from the "
                                            "oldest kept)")},
                   {"type", string("exact event types, comma-separated")},
                   {"limit", integerBetween(1, kMaxLimit, "at most this many (default 50)")}}),
       .data = arrayOf(ref("Event")),
       .errors = {410}});
  registry.describeExtra("GET", "/events", {.meta = cursorMeta()});
}

}  // namespace

void registerEventsRoute(Registry& registry, Database& db, const EventCatalogue& catalogue,
                         const EventLog& log) {
  registry.route("GET", "/events",
                 [&db, &catalogue, &log](const Request& request) {
                   return listEvents(request, db, catalogue, log);
                 },
                 {.access = Access::Authenticated,
                  .roles = {Role::Owner, Role::Admin},
                  .scope = "events:read"});
  describeEventsRoute(registry);
}

}  // namespace rapport::host
