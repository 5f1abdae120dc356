#include "events/EventBus.h"

#include <algorithm>
#include <stdexcept>

#include "log/RequestScope.h"
#include "rapport/ids.h"
#include "rapport/time.h"

namespace rapport::host {
namespace {

// The event row with its company's log position, in commit order:
// - SQLite serialises writers, so the next number can be taken now;
// - PostgreSQL gets a provisional negative number, replaced after the
//   commit by a pass of EventNumbering.h (migration 0016), so nothing of the
//   company is held across the writer's commit.
void insertEventRow(Tx& tx, const Event& event) {
  const Value requestId = event.requestId.empty() ? Value() : Value(event.requestId);
  const Value actorId = event.actor.id.empty() ? Value() : Value(event.actor.id);
  if (tx.dialect() == Dialect::SQLite) {
    tx.exec(
        "INSERT INTO event_sequences (company_id, last_sequence) VALUES (?, 1) "
        "ON CONFLICT (company_id) DO UPDATE SET last_sequence = last_sequence + 1",
        {event.companyId});
    tx.exec(
        "INSERT INTO events (company_id, sequence, id, type, module, request_id, data, "
        "created_at, actor_type, actor_id) VALUES (?, (SELECT last_sequence FROM event_sequences "
        "WHERE company_id = ?), ?, ?, ?, ?, ?, ?, ?, ?)",
        {event.companyId, event.companyId, event.id, event.type, event.module, requestId,
         event.data.dump(), event.createdAt, event.actor.type, actorId});
    return;
  }
  tx.exec(
      "INSERT INTO events (company_id, sequence, id, type, module, request_id, data, created_at, "
      "actor_type, actor_id) VALUES (?, 0 - nextval('events_provisional'), ?, ?, ?, ?, ?, ?, ?, ?)",
      {event.companyId, event.id, event.type, event.module, requestId, event.data.dump(),
       event.createdAt, event.actor.type, actorId});
}

}  // namespace

void EventBus::declare(EventType type) {
  auto [it, inserted] = types_.emplace(type.type, type);
  if (!inserted) {
    throw std::logic_error("event type '" + type.type + "' is declared by both module '" +
                           it->second.module + "' and module '" + type.module + "'");
  }
}

void EventBus::listen(EventListener listener) {
  listeners_.push_back(std::move(listener));
}

std::vector<EventType> EventBus::types() const {
  std::vector<EventType> out;
  out.reserve(types_.size());
  for (const auto& [name, type] : types_) out.push_back(type);
  return out;
}

std::optional<EventType> EventBus::find(const std::string& type) const {
  auto it = types_.find(type);
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

Event EventBus::record(Tx& tx, const std::string& type, const Json& data) const {
  auto declared = types_.find(type);
  if (declared == types_.end()) {
    throw std::logic_error("event type '" + type + "' was never declared");
  }
  if (tx.companyId().empty()) {
    throw std::logic_error("event '" + type + "' emitted in a transaction without a company");
  }
  Event event;
  event.id = newId("evt_");
  event.type = type;
  event.module = declared->second.module;
  event.companyId = tx.companyId();
  event.requestId = RequestScope::current();
  event.actor = RequestScope::actor();
  event.createdAt = nowMicros();
  event.data = data;
  insertEventRow(tx, event);
  for (const auto& listener : listeners_) listener(tx, event);
  return event;
}

std::int64_t EventBus::purgeOlderThan(Database& db, std::int64_t cutoffMicros, int batch) {
  std::int64_t removed = 0;
  db.transaction("", [&](Tx& tx) {
    const Result gone = tx.query(
        "DELETE FROM events WHERE id IN "
        "(SELECT id FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?) "
        "RETURNING company_id, sequence",
        {cutoffMicros, batch});
    // The log's horizon (migration 0009), with the removal or not at all.
    // Companies in name order, so two instances purging at once lock their
    // counter rows in the same order.
    std::map<std::string, std::int64_t> through;
    for (const Row& row : gone) {
      std::int64_t& highest = through[row.str("company_id")];
      highest = std::max(highest, row.i64("sequence"));
    }
    for (const auto& [companyId, sequence] : through) {
      tx.exec(
          "UPDATE event_sequences SET "
          "purged_through = CASE WHEN purged_through < ? THEN ? ELSE purged_through END, "
          "purged_before = CASE WHEN purged_before < ? THEN ? ELSE purged_before END "
          "WHERE company_id = ?",
          {sequence, sequence, cutoffMicros, cutoffMicros, companyId});
    }
    removed = static_cast<std::int64_t>(gone.size());
  });
  return removed;
}

void EventBus::clear() {
  listeners_.clear();
}

}  // namespace rapport::host
