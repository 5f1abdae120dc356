#include "replay/ReplayRoute.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "DeliveryStore.h"
#include "FanOut.h"
#include "WebhookStore.h"
#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/time.h"
#include "rapport/validation.h"
#include "replay/Redelivery.h"

namespace rapport::webhooks {
namespace {

const char* const kWebhookNotFound = "Webhook not found.";
const char* const kDisabled = "The webhook is disabled.";
// Events read from the log per statement (EventQuery's maximum).
constexpr std::size_t kLogPage = 1000;

// Where the replay starts: exactly one of `since` and `after`.
struct ReplayStart {
  std::optional<std::int64_t> since;  // microseconds
  std::optional<std::int64_t> after;  // a sequence
  std::string field() const { return since ? "since" : "after"; }
};

struct ReplayBody {
  ReplayStart start;
  std::optional<std::vector<std::string>> types;  // absent: every type of the webhook
};

// `types`: a non-empty array of strings, duplicates dropped.
std::optional<std::vector<std::string>> readTypes(const Json& body, Validator& v) {
  const Json* field = body.find("types");
  if (field == nullptr) return std::nullopt;
  const char* const kShape = "The types must be a non-empty array of event types.";
  if (!field->isArray() || field->asArray().empty()) {
    v.fail("types", kShape);
    return std::nullopt;
  }
  std::vector<std::string> types;
  for (const Json& item : field->asArray()) {
    if (!item.isString()) {
      v.fail("types", kShape);
      return std::nullopt;
    }
    if (std::find(types.begin(), types.end(), item.asString()) == types.end()) {
      types.push_back(item.asString());
    }
  }
  return types;
}

ReplayBody readBody(const Request& request) {
  const Json& body = request.bodyObject();
  Validator v(body);
  ReplayBody in;
  in.start.since = v.timestamp("since").value;
  in.start.after = v.integer("after", {.required = false, .min = 0, .max = std::nullopt}).value;
  const bool since = v.present("since");
  const bool after = v.present("after");
  if (!since && !after) v.fail("since", "Either since or after is required.");
  if (since && after) v.fail("after", "Give either since or after, not both.");
  in.types = readTypes(body, v);
  v.check();
  return in;
}

// The webhook's types, narrowed to `asked` (each one must be among them).
std::vector<std::string> replayedTypes(const std::vector<std::string>& subscribed,
                                       const std::optional<std::vector<std::string>>& asked) {
  if (!asked) return subscribed;
  FieldErrors errors;
  for (const std::string& type : *asked) {
    if (std::find(subscribed.begin(), subscribed.end(), type) == subscribed.end()) {
      errors["types"].push_back("The type '" + type + "' is not one of the webhook's events.");
    }
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return *asked;
}

Json optionalInteger(const std::optional<std::int64_t>& value) {
  return value ? Json(static_cast<long long>(*value)) : Json(nullptr);
}

}  // namespace

Response ReplayRoute::operator()(const Request& request) const {
  const ReplayBody in = readBody(request);
  const std::string& id = request.param("id");
  // As the fan-out: the schedule is read in start().
  const std::chrono::seconds first =
      deliverer_.started() ? deliverer_.schedule().first() : std::chrono::seconds(0);
  Redelivered done;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    // Key-share: a concurrent DELETE of the webhook waits for this commit,
    // then deletes these deliveries with the others.
    const auto row = webhook_store::find(tx, tx.companyId(), id, RowLock::KeyShare);
    if (!row) throw Error::notFound(kWebhookNotFound);
    if (!row->flag("is_active")) throw Error::conflict(kDisabled);
    std::vector<std::string> types = replayedTypes(webhook_store::fromRow(*row).events, in.types);
    done = redeliver(tx, host_.eventLog(), id,
                     {.query = {.afterSequence = in.start.after.value_or(0),
                                .since = in.start.since.value_or(0),
                                .types = std::move(types),
                                .limit = kLogPage},
                      .due = nowMicros() + static_cast<std::int64_t>(first.count()) * 1'000'000,
                      .cap = static_cast<std::int64_t>(kMaxReplay),
                      .maxPayloadBytes = maxPayloadBytes_});
    if (done.truncated) {
      throw Error::gone("The " + std::string(in.start.since ? "since" : "cursor") +
                        " is older than the event log keeps (events.retention_days).");
    }
    if (done.overCap) {
      throw Error::validation(
          {{in.start.field(),
            {"More than " + std::to_string(kMaxReplay) +
             " events match: narrow the replay (a later " + in.start.field() + ", or types)."}}});
    }
    tx.afterCommit([workers = workers_] {
      if (workers) workers->wake();
    });
  });
  host_.log().info("webhook replay: webhook=" + id + " replayed=" + std::to_string(done.count));
  Response response =
      Response::ok(Json::object({{"replayed", Json(static_cast<long long>(done.count))},
                                 {"from_sequence", optionalInteger(done.from)},
                                 {"to_sequence", optionalInteger(done.to)}}),
                   "Replay accepted.");
  response.status = 202;
  return response;
}

void describeReplayRoute(Registry& registry) {
  using namespace rapport::schema;
  registry.describe(
      "POST", "/webhooks/{id}/replay",
      {.summary = "Send a webhook its logged events again",
       .description =
           "Needs the owner or admin role. Writes one new delivery per event of the webhook's "
           "types (or of `types`, a subset of them) kept in the event log after the cursor "
           "`after` (a `sequence`, as GET /v1/events pages) or created at or after `since`: "
           "exactly one of the two. The deliveries are sent like those of fresh events (a "
           "new delivery id, signed when sent), oldest first, after the company's fresh "
           "deliveries. At most 10000 events per call "
           "(422 beyond: narrow it). 409 when the webhook is disabled; 410 when the event log "
           "no longer keeps all the events asked for (events.retention_days).",
       .body = object({{"since", timestamp("replay the events created at or after this time")},
                       {"after", integerBetween(0, std::numeric_limits<std::int64_t>::max(),
                                                "replay the events after this sequence")},
                       {"types", arrayOf(string(), "some of the webhook's event types")}}),
       .status = 202,
       .data = object({{"replayed", integer("deliveries written")},
                       {"from_sequence", nullable(integer("the first event replayed"))},
                       {"to_sequence", nullable(integer("the last event replayed"))}},
                      {"replayed", "from_sequence", "to_sequence"}),
       .errors = {409, 410}});
}

}  // namespace rapport::webhooks
