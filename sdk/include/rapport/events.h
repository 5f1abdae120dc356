// Events: what happened in a company, recorded in the same transaction as
// the change (Tx::emit) in the host's event log.
//
// The event log (table `events`, owned by the host; docs/events.md):
//   - `sequence` numbers a company's events 1, 2, 3, ... in commit order
//     (not wall-clock order): a reader that saw sequence N has seen every
//     event of that company up to N. The number is given as the transaction
//     commits, so listeners inside it do not know it yet (they have `id`);
//   - each row names the module that declared the type and the request that
//     caused it (X-Request-Id; empty for jobs);
//   - rows are kept `events.retention_days` (30) and then removed by a host job.
//
// Modules declare the types they emit with a description (they appear in
// GET /v1/webhooks/events with the module's name) and may listen to every
// recorded event inside the emitting transaction: the webhooks module writes
// its deliveries there, so a change, its event and its deliveries commit
// together or not at all.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/json.h"

namespace rapport {

struct EventType {
  std::string type;         // "crm.contact.created" (domain.resource.action)
  std::string description;  // one sentence for GET /webhooks/events
  std::string module;       // filled in by the host
};

// Since 10.0. Who caused an event (decisions §15, §16): a user, an API key,
// or the system (a job, start-up). The host fills it from the request.
struct Actor {
  std::string type = "system";  // "user", "api_key" or "system"
  std::string id = {};          // user_... or key_...; empty for "system"
};

struct Event {
  std::string id;              // evt_..., the occurrence in the log
  std::string type;            // "crm.contact.created"
  std::string module;          // the module that declared the type
  std::string companyId;       // tenant company
  std::string requestId;       // X-Request-Id of the request, "" outside requests
  std::int64_t createdAt = 0;  // microseconds since the epoch
  Json data;                   // the record as GET returns it; {"id"} for deletions
  Actor actor = {};            // since 10.0
};

// Since 10.0. The actor of what `identity` does: {"user", user_...} or
// {"api_key", key_...}; the system when it is not authenticated.
RAPPORT_SDK_API Actor actorOf(const Identity& identity);

// Since 10.0. {"type": ..., "id": ...} ({"type": "system"} without an id):
// how the event log and webhook envelopes show an actor.
RAPPORT_SDK_API Json actorJson(const Actor& actor);

// Called inside the emitting transaction, after the event row is written.
// Throwing rolls the whole transaction back.
using EventListener = std::function<void(Tx& tx, const Event& event)>;

// The event types the enabled modules declared (Host::events()). Complete
// once every module's setup() ran; read it from start() on.
class RAPPORT_VISIBLE EventCatalogue {
 public:
  virtual ~EventCatalogue() = default;
  // Every declared type, sorted by type name.
  virtual std::vector<EventType> types() const = 0;
  virtual std::optional<EventType> find(const std::string& type) const = 0;
};

// Since 6.0. An event as the log keeps it, with its place in the company's
// order (the cursor of GET /v1/events and of webhook replays).
struct LoggedEvent {
  std::int64_t sequence = 0;
  Event event;
};

// Since 6.0. Which of a company's events to read, in sequence order.
struct EventQuery {
  std::int64_t afterSequence = 0;       // events with a greater sequence
  std::int64_t since = 0;               // and created at or after it (microseconds); 0: any time
  std::vector<std::string> types = {};  // exact type names; empty: every type
  std::size_t limit = 100;              // at most this many (1 to 1000)
};

struct EventPage {
  std::vector<LoggedEvent> events;
  // True when events the query asks for were already removed by the
  // retention (events.retention_days): the cursor, or `since`, is older
  // than what the log still holds. GET /v1/events answers 410 then.
  bool truncated = false;
};

// Since 6.0 (Host::eventLog). Reads the event log: committed events only,
// each with its final sequence.
class RAPPORT_VISIBLE EventLog {
 public:
  virtual ~EventLog() = default;
  // `db` may be a transaction. On PostgreSQL it does not see its own
  // uncommitted events (their sequence is given at commit); on SQLite it
  // does. Read before you emit.
  virtual EventPage read(Queryable& db, const std::string& companyId,
                         const EventQuery& query) const = 0;
};

}  // namespace rapport
