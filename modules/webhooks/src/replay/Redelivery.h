// New deliveries for events already in the log: the one loop behind a
// replay (POST /webhooks/{id}/replay) and a backfill (POST
// /webhooks/{id}/enable with backfill true).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "rapport/db.h"
#include "rapport/events.h"

namespace rapport::webhooks {

// At most this many deliveries per replay or backfill (docs/modules/
// webhooks.md, "Fairness"): beyond, the call is refused (422) and writes
// nothing, rather than clipped, since a clipped backfill would drop events
// silently; the caller narrows it (replay: a later cursor, or types) or
// enables without a backfill and replays in parts.
inline constexpr std::int64_t kMaxRedelivery = 10000;

struct Redelivered {
  std::int64_t count = 0;
  std::optional<std::int64_t> from;  // the first event's sequence
  std::optional<std::int64_t> to;    // the last one's
  bool truncated = false;            // the retention removed some (EventPage)
  bool overCap = false;              // more than `cap` matched: stopped, the caller refuses
};

struct RedeliveryPlan {
  EventQuery query;      // which events (its limit is the page size)
  std::int64_t due = 0;  // the first delivery's due time; the next ones 1 µs apart
  std::int64_t cap = 0;  // at most this many (0: no cap)
  std::function<bool(const Event&)> skip = {};  // events to leave out
  std::size_t maxPayloadBytes = 0;  // webhooks.max_payload_bytes (eventDelivery); 0 sends all thin
};

// Reads the company's log page by page in `tx` and writes one new delivery
// per event for `webhookId` (FanOut's eventDelivery), in the log's order,
// so the workers send them oldest first. The deliveries are marked backlog:
// the workers take the company's fresh deliveries before them.
Redelivered redeliver(Tx& tx, const EventLog& log, const std::string& webhookId,
                      RedeliveryPlan plan);

}  // namespace rapport::webhooks
